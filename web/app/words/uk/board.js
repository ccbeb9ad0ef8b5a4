// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Ukrainian. A draughts king is a дамка, a man a проста. i18n.js loads it
// when the page speaks Ukrainian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Дошка: {variant}',
  'board.cell': '{square}, {piece}',
  'board.square_n': 'поле {n}',
  'piece.w.man': 'біла проста',
  'piece.w.dama': 'біла дамка',
  'piece.w.k': 'білий король',
  'piece.w.q': 'білий ферзь',
  'piece.w.r': 'біла тура',
  'piece.w.b': 'білий слон',
  'piece.w.n': 'білий кінь',
  'piece.w.p': 'білий пішак',
  'piece.b.man': 'чорна проста',
  'piece.b.dama': 'чорна дамка',
  'piece.b.k': 'чорний король',
  'piece.b.q': 'чорний ферзь',
  'piece.b.r': 'чорна тура',
  'piece.b.b': 'чорний слон',
  'piece.b.n': 'чорний кінь',
  'piece.b.p': 'чорний пішак',
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
