// The words of the API tokens page (tokens.js) in English. i18n.js loads it when the
// page speaks English; the other languages' files have the same keys
// (web/tests/i18n.test.js).

export default {
  'tokens.title': 'API tokens',
  'tokens.intro': 'Personal tokens let programs (bots, board apps) play as you through the Bot and Board API. Give each only the scopes it needs.',
  'tokens.signin': 'Sign in with an account to manage API tokens.',
  'tokens.loading': 'Loading…',
  'tokens.none': 'No tokens yet.',
  'tokens.description': 'Description',
  'tokens.scopes': 'Scopes',
  'tokens.created': 'Created',
  'tokens.status': 'Status',
  'tokens.live': 'active',
  'tokens.revokedAt': 'revoked {date}',
  'tokens.revoke': 'Revoke',
  'tokens.revokeConfirm': 'Revoke it? Programs using this token stop at once.',
  'tokens.new': 'New token',
  'tokens.descriptionPlaceholder': 'What the token is for',
  'tokens.create': 'Create token',
  'tokens.needScope': 'Choose at least one scope.',
  'tokens.secret': 'Your new token',
  'tokens.secretOnce': 'Copy it now: it is shown only once.',
  'tokens.scope.bot:play': 'play as a bot (Bot API)',
  'tokens.scope.board:play': 'play your games (Board API)',
  'tokens.scope.challenge:read': 'see your challenges',
  'tokens.scope.challenge:write': 'send and answer challenges',
  'tokens.scope.preference:read': 'read your account',
  'tokens.scope.tournament:write': 'create arenas',
};
