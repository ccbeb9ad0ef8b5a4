// The words of the API tokens page (tokens.js) in Macedonian. i18n.js loads it when the
// page speaks Macedonian; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'tokens.title': 'API-токени',
  'tokens.intro': 'Личните токени им дозволуваат на програмите (ботови, апликации за табла) да играат во ваше име преку Bot API и Board API. Давајте му на секој само правата што му требаат.',
  'tokens.signin': 'Најавете се со сметка за да управувате со API-токените.',
  'tokens.loading': 'Се вчитува…',
  'tokens.none': 'Сè уште нема токени.',
  'tokens.description': 'Опис',
  'tokens.scopes': 'Права',
  'tokens.created': 'Создаден',
  'tokens.status': 'Состојба',
  'tokens.live': 'важи',
  'tokens.revokedAt': 'повлечен {date}',
  'tokens.revoke': 'Повлечи',
  'tokens.revokeConfirm': 'Да се повлече токенот? Програмите што го користат веднаш ќе запрат.',
  'tokens.new': 'Нов токен',
  'tokens.descriptionPlaceholder': 'За што е токенот',
  'tokens.create': 'Создај токен',
  'tokens.needScope': 'Изберете барем едно право.',
  'tokens.secret': 'Вашиот нов токен',
  'tokens.secretOnce': 'Копирајте го сега: се прикажува само еднаш.',
  'tokens.scope.bot:play': 'игра како бот (Bot API)',
  'tokens.scope.board:play': 'игра на вашите партии (Board API)',
  'tokens.scope.challenge:read': 'гледање на вашите предизвици',
  'tokens.scope.challenge:write': 'праќање и одговарање на предизвици',
  'tokens.scope.preference:read': 'читање на сметката',
  'tokens.scope.tournament:write': 'создавање арени',
};
