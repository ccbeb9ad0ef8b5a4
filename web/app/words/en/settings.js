// The settings page's words (settings.js) in English. i18n.js loads it when the page
// speaks English; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'settings.title': 'Settings',
  'settings.guest_note': 'As a guest your settings stay in this browser; with an account they follow you to every browser.',
  'settings.language': 'Language',
  'settings.board': 'Board colours',
  'settings.pieces': 'Pieces',
  'settings.coordinates': 'Coordinates on the board',
  'settings.sound': 'Sound',
  'settings.premoves': 'Premoves',
  'settings.confirm_resign': 'Confirm resignation',
  'settings.board_brown': 'Brown',
  'settings.board_green': 'Green',
  'settings.board_blue': 'Blue',
  'settings.board_grey': 'Grey',
  'settings.pieces_flat': 'Flat',
  'settings.pieces_classic': 'Classic',
  'settings.preview': 'Preview',
  'settings.saved_account': 'Saved to your account.',
  'settings.saved_browser': 'Saved in this browser.',
};
