// The words of the API tokens page (tokens.js) in Russian. i18n.js loads it when the
// page speaks Russian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'tokens.title': 'API-токены',
  'tokens.intro': 'Личные токены позволяют программам (ботам, приложениям для доски) играть от вашего имени через Bot API и Board API. Давайте каждому только нужные права.',
  'tokens.signin': 'Войдите в учётную запись, чтобы управлять API-токенами.',
  'tokens.loading': 'Загрузка…',
  'tokens.none': 'Токенов пока нет.',
  'tokens.description': 'Описание',
  'tokens.scopes': 'Права',
  'tokens.created': 'Создан',
  'tokens.status': 'Состояние',
  'tokens.live': 'действует',
  'tokens.revokedAt': 'отозван {date}',
  'tokens.revoke': 'Отозвать',
  'tokens.revokeConfirm': 'Отозвать токен? Программы, которые им пользуются, сразу остановятся.',
  'tokens.new': 'Новый токен',
  'tokens.descriptionPlaceholder': 'Для чего этот токен',
  'tokens.create': 'Создать токен',
  'tokens.needScope': 'Выберите хотя бы одно право.',
  'tokens.secret': 'Ваш новый токен',
  'tokens.secretOnce': 'Скопируйте его сейчас: он показывается только один раз.',
  'tokens.scope.bot:play': 'играть как бот (Bot API)',
  'tokens.scope.board:play': 'играть свои партии (Board API)',
  'tokens.scope.challenge:read': 'видеть ваши вызовы',
  'tokens.scope.challenge:write': 'отправлять вызовы и отвечать на них',
  'tokens.scope.preference:read': 'читать данные учётной записи',
  'tokens.scope.tournament:write': 'создавать арены',
};
