// The settings page's words (settings.js) in Russian. i18n.js loads it when the page
// speaks Russian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'settings.title': 'Настройки',
  'settings.guest_note': 'У гостя настройки хранятся в этом браузере; с учётной записью они следуют за вами в любой браузер.',
  'settings.language': 'Язык',
  'settings.board': 'Цвета доски',
  'settings.pieces': 'Шашки и фигуры',
  'settings.coordinates': 'Координаты на доске',
  'settings.sound': 'Звук',
  'settings.premoves': 'Предходы',
  'settings.confirm_resign': 'Подтверждать сдачу',
  'settings.board_brown': 'Коричневая',
  'settings.board_green': 'Зелёная',
  'settings.board_blue': 'Синяя',
  'settings.board_grey': 'Серая',
  'settings.pieces_flat': 'Плоские',
  'settings.pieces_classic': 'Классические',
  'settings.preview': 'Как это выглядит',
  'settings.saved_account': 'Сохранено в учётной записи.',
  'settings.saved_browser': 'Сохранено в этом браузере.',
};
