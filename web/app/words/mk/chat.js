// The chat panel's words (chat.js) in Macedonian. i18n.js loads it when the page speaks
// Macedonian; the other languages' files have the same keys (web/tests/i18n.test.js).

export default {
  'chat.title': 'Разговор',
  'chat.lines': 'Пораки во разговорот',
  'chat.say': 'Напишете порака',
  'chat.players': 'Играчи',
  'chat.spectators': 'Гледачи',
  'chat.room': 'Разговор',
  'chat.mute': 'Исклучи го разговорот',
  'chat.unmute': 'Вклучи го разговорот',
  'chat.block': 'Блокирај',
  'chat.block_title': 'Блокирај го {name}: скриј ги пораките и одбиј ги предизвиците',
  'chat.report': 'Пријави',
  'chat.report_title': 'Пријави ја пораката кај модераторите',
  'chat.delete': 'Избриши',
  'chat.timeout': 'Исклучи привремено',
  'chat.reported': 'Ви благодариме: модераторите ќе ја прочитаат пријавата.',
  'chat.timed_out': 'Модератор привремено го исклучи {name} од разговорот.',
  'chat.you_timed_out': 'Модератор привремено ве исклучи од разговорот.',
  'chat.guests_read': 'Гостите можат да го читаат разговорот; најавете се за да пишувате.',
  'error.bad_chat_line': 'Пораката не може да биде празна или подолга од 140 знаци.',
  'chat.error.rate_limited': 'Пишувате пребрзо: почекајте неколку секунди.',
  'error.timed_out': 'Модератор привремено ве исклучи од разговорот.',
  'error.chat_forbidden': 'Не можете да пишувате во овој разговор.',
  'error.not_a_moderator': 'Ова можат само модераторите.',
  'error.chat_line_not_found': 'Таа порака веќе ја нема.',
};
