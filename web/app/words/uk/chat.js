// The chat panel's words (chat.js) in Ukrainian. i18n.js loads it when the page speaks
// Ukrainian; the other languages' files have the same keys (web/tests/i18n.test.js).

export default {
  'chat.title': 'Чат',
  'chat.lines': 'Повідомлення чату',
  'chat.say': 'Напишіть повідомлення',
  'chat.players': 'Гравці',
  'chat.spectators': 'Глядачі',
  'chat.room': 'Чат',
  'chat.mute': 'Вимкнути чат',
  'chat.unmute': 'Увімкнути чат',
  'chat.block': 'Заблокувати',
  'chat.block_title': 'Заблокувати {name}: приховати повідомлення й не приймати виклики',
  'chat.report': 'Поскаржитися',
  'chat.report_title': 'Поскаржитися модераторам на це повідомлення',
  'chat.delete': 'Видалити',
  'chat.timeout': 'Відсторонити',
  'chat.reported': 'Дякуємо: модератори прочитають вашу скаргу.',
  'chat.timed_out': 'Модератор тимчасово відсторонив {name} від чату.',
  'chat.you_timed_out': 'Модератор тимчасово відсторонив вас від чату.',
  'chat.guests_read': 'Гості можуть читати чат; увійдіть, щоб писати.',
  'error.bad_chat_line': 'Повідомлення не може бути порожнім або довшим за 140 знаків.',
  'chat.error.rate_limited': 'Ви пишете надто швидко: зачекайте кілька секунд.',
  'error.timed_out': 'Модератор тимчасово відсторонив вас від чату.',
  'error.chat_forbidden': 'У цьому чаті ви писати не можете.',
  'error.not_a_moderator': 'Це можуть лише модератори.',
  'error.chat_line_not_found': 'Цього повідомлення вже немає.',
};
