// The words of the API tokens page (tokens.js) in Ukrainian. i18n.js loads it when the
// page speaks Ukrainian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'tokens.title': 'API-токени',
  'tokens.intro': 'Особисті токени дозволяють програмам (ботам, застосункам для дошки) грати від вашого імені через Bot API та Board API. Давайте кожному лише потрібні права.',
  'tokens.signin': 'Увійдіть в обліковий запис, щоб керувати API-токенами.',
  'tokens.loading': 'Завантаження…',
  'tokens.none': 'Токенів ще немає.',
  'tokens.description': 'Опис',
  'tokens.scopes': 'Права',
  'tokens.created': 'Створено',
  'tokens.status': 'Стан',
  'tokens.live': 'діє',
  'tokens.revokedAt': 'відкликано {date}',
  'tokens.revoke': 'Відкликати',
  'tokens.revokeConfirm': 'Відкликати токен? Програми, які ним користуються, одразу зупиняться.',
  'tokens.new': 'Новий токен',
  'tokens.descriptionPlaceholder': 'Для чого цей токен',
  'tokens.create': 'Створити токен',
  'tokens.needScope': 'Виберіть хоча б одне право.',
  'tokens.secret': 'Ваш новий токен',
  'tokens.secretOnce': 'Скопіюйте його зараз: він показується лише один раз.',
  'tokens.scope.bot:play': 'грати як бот (Bot API)',
  'tokens.scope.board:play': 'грати свої партії (Board API)',
  'tokens.scope.challenge:read': 'бачити ваші виклики',
  'tokens.scope.challenge:write': 'надсилати виклики й відповідати на них',
  'tokens.scope.preference:read': 'читати дані облікового запису',
  'tokens.scope.tournament:write': 'створювати арени',
};
