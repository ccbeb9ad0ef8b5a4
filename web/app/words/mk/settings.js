// The settings page's words (settings.js) in Macedonian. i18n.js loads it when the page
// speaks Macedonian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'settings.title': 'Поставки',
  'settings.guest_note': 'Како гостин, поставките остануваат во овој прелистувач; со сметка ве следат во секој прелистувач.',
  'settings.language': 'Јазик',
  'settings.board': 'Бои на таблата',
  'settings.pieces': 'Фигури',
  'settings.coordinates': 'Координати на таблата',
  'settings.sound': 'Звук',
  'settings.premoves': 'Предпотези',
  'settings.confirm_resign': 'Потврди предавање',
  'settings.board_brown': 'Кафеава',
  'settings.board_green': 'Зелена',
  'settings.board_blue': 'Сина',
  'settings.board_grey': 'Сива',
  'settings.pieces_flat': 'Рамни',
  'settings.pieces_classic': 'Класични',
  'settings.preview': 'Преглед',
  'settings.saved_account': 'Зачувано во вашата сметка.',
  'settings.saved_browser': 'Зачувано во овој прелистувач.',
};
