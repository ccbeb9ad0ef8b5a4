// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Ukrainian. A draughts king is a дамка, a man a проста. i18n.js loads it
// when the page speaks Ukrainian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Дошка: {variant}',
  'board.white': 'біла',
  'board.black': 'чорна',
  'board.move_here': 'хід сюди',
  'board.premove': 'передхід',
  'board.promote': 'перетворити на: {piece}',
  'board.promote_pick': 'оберіть фігуру',
  'piece.man': 'проста',
  'piece.dama': 'дамка',
  'piece.k': 'король',
  'piece.q': 'ферзь',
  'piece.r': 'тура',
  'piece.b': 'слон',
  'piece.n': 'кінь',
  'piece.p': 'пішак',
};
