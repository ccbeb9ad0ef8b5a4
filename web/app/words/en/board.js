// The board's words (board.js): what a screen reader says of the board, its squares and
// pieces in English. i18n.js loads it when the page speaks English; the other
// languages' files have the same keys (web/tests/i18n.test.js).

export default {
  'board.label': '{variant} board',
  'board.white': 'white',
  'board.black': 'black',
  'board.move_here': 'move here',
  'board.premove': 'premove',
  'board.promote': 'promote to {piece}',
  'board.promote_pick': 'choose the piece',
  'piece.man': 'man',
  'piece.dama': 'king',
  'piece.k': 'king',
  'piece.q': 'queen',
  'piece.r': 'rook',
  'piece.b': 'bishop',
  'piece.n': 'knight',
  'piece.p': 'pawn',
};
