// The chat panel's words (chat.js) in Russian. i18n.js loads it when the page speaks
// Russian; the other languages' files have the same keys (web/tests/i18n.test.js).

export default {
  'chat.title': 'Чат',
  'chat.lines': 'Сообщения чата',
  'chat.say': 'Напишите сообщение',
  'chat.players': 'Игроки',
  'chat.spectators': 'Зрители',
  'chat.room': 'Чат',
  'chat.mute': 'Выключить чат',
  'chat.unmute': 'Включить чат',
  'chat.block': 'Заблокировать',
  'chat.block_title': 'Заблокировать {name}: скрыть сообщения и не принимать вызовы',
  'chat.report': 'Пожаловаться',
  'chat.report_title': 'Пожаловаться модераторам на это сообщение',
  'chat.delete': 'Удалить',
  'chat.timeout': 'Отстранить',
  'chat.reported': 'Спасибо: модераторы прочтут вашу жалобу.',
  'chat.timed_out': 'Модератор временно отстранил {name} от чата.',
  'chat.you_timed_out': 'Модератор временно отстранил вас от чата.',
  'chat.guests_read': 'Гости могут читать чат; войдите, чтобы писать.',
  'error.bad_chat_line': 'Сообщение не может быть пустым или длиннее 140 знаков.',
  'chat.error.rate_limited': 'Вы пишете слишком быстро: подождите несколько секунд.',
  'error.timed_out': 'Модератор временно отстранил вас от чата.',
  'error.chat_forbidden': 'В этом чате вы писать не можете.',
  'error.not_a_moderator': 'Это могут только модераторы.',
  'error.chat_line_not_found': 'Этого сообщения больше нет.',
};
