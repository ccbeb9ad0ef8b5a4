// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in Macedonian. A draughts king is a дама, a man a пион. i18n.js loads it when
// the page speaks Macedonian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'board.label': 'Табла: {variant}',
  'board.white': 'бел',
  'board.black': 'црн',
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
