// The settings page's words (settings.js) in Ukrainian. i18n.js loads it when the page
// speaks Ukrainian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'settings.title': 'Налаштування',
  'settings.guest_note': 'У гостя налаштування зберігаються в цьому браузері; з обліковим записом вони йдуть за вами в будь-який браузер.',
  'settings.language': 'Мова',
  'settings.board': 'Кольори дошки',
  'settings.pieces': 'Шашки й фігури',
  'settings.coordinates': 'Координати на дошці',
  'settings.sound': 'Звук',
  'settings.premoves': 'Передходи',
  'settings.confirm_resign': 'Підтверджувати здачу',
  'settings.board_brown': 'Коричнева',
  'settings.board_green': 'Зелена',
  'settings.board_blue': 'Синя',
  'settings.board_grey': 'Сіра',
  'settings.pieces_flat': 'Пласкі',
  'settings.pieces_classic': 'Класичні',
  'settings.preview': 'Як це виглядає',
  'settings.saved_account': 'Збережено в обліковому записі.',
  'settings.saved_browser': 'Збережено в цьому браузері.',
};
