// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Macedonian. A draughts king is a дама, a man a пион. i18n.js loads it when
// the page speaks Macedonian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Табла: {variant}',
  'board.cell': '{square}, {piece}',
  'board.square_n': 'поле {n}',
  'piece.w.man': 'бел пион',
  'piece.w.dama': 'бела дама',
  'piece.w.k': 'бел крал',
  'piece.w.q': 'бела кралица',
  'piece.w.r': 'бел топ',
  'piece.w.b': 'бел ловец',
  'piece.w.n': 'бел коњ',
  'piece.w.p': 'бел пешак',
  'piece.b.man': 'црн пион',
  'piece.b.dama': 'црна дама',
  'piece.b.k': 'црн крал',
  'piece.b.q': 'црна кралица',
  'piece.b.r': 'црн топ',
  'piece.b.b': 'црн ловец',
  'piece.b.n': 'црн коњ',
  'piece.b.p': 'црн пешак',
  'board.move_here': 'потег тука',
  'board.premove': 'предпотег',
  'board.promote': 'промовирај во: {piece}',
  'board.promote_pick': 'изберете фигура',
  'piece.man': 'пион',
  'piece.dama': 'дама',
  'piece.k': 'крал',
  'piece.q': 'кралица',
  'piece.r': 'топ',
  'piece.b': 'ловец',
  'piece.n': 'коњ',
  'piece.p': 'пешак',
};
