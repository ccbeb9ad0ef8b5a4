// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Russian. A draughts king is a дамка, a man a простая. i18n.js loads it when
// the page speaks Russian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Доска: {variant}',
  'board.white': 'белая',
  'board.black': 'чёрная',
  'board.move_here': 'ход сюда',
  'board.premove': 'предход',
  'board.promote': 'превратить в: {piece}',
  'board.promote_pick': 'выберите фигуру',
  'piece.man': 'простая',
  'piece.dama': 'дамка',
  'piece.k': 'король',
  'piece.q': 'ферзь',
  'piece.r': 'ладья',
  'piece.b': 'слон',
  'piece.n': 'конь',
  'piece.p': 'пешка',
};
