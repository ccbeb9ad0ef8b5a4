// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Russian. A draughts king is a дамка, a man a простая. i18n.js loads it when
// the page speaks Russian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Доска: {variant}',
  'board.cell': '{square}, {piece}',
  'board.square_n': 'поле {n}',
  'piece.w.man': 'белая простая',
  'piece.w.dama': 'белая дамка',
  'piece.w.k': 'белый король',
  'piece.w.q': 'белый ферзь',
  'piece.w.r': 'белая ладья',
  'piece.w.b': 'белый слон',
  'piece.w.n': 'белый конь',
  'piece.w.p': 'белая пешка',
  'piece.b.man': 'чёрная простая',
  'piece.b.dama': 'чёрная дамка',
  'piece.b.k': 'чёрный король',
  'piece.b.q': 'чёрный ферзь',
  'piece.b.r': 'чёрная ладья',
  'piece.b.b': 'чёрный слон',
  'piece.b.n': 'чёрный конь',
  'piece.b.p': 'чёрная пешка',
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
