// The chat panel's words (chat.js) in English. i18n.js loads it when the page speaks
// English; the other languages' files have the same keys (web/tests/i18n.test.js).

export default {
  'chat.title': 'Chat',
  'chat.lines': 'Chat lines',
  'chat.say': 'Say something',
  'chat.players': 'Players',
  'chat.spectators': 'Spectators',
  'chat.room': 'Chat room',
  'chat.mute': 'Mute',
  'chat.unmute': 'Unmute',
  'chat.block': 'Block',
  'chat.block_title': 'Block {name}: hide their lines and refuse their challenges',
  'chat.report': 'Report',
  'chat.report_title': 'Report this line to the moderators',
  'chat.delete': 'Delete',
  'chat.timeout': 'Time out',
  'chat.reported': 'Thank you: the moderators will read your report.',
  'chat.timed_out': '{name} was timed out by a moderator.',
  'chat.you_timed_out': 'A moderator timed you out of the chat for a while.',
  'chat.guests_read': 'Guests can read the chat; sign in to talk.',
  'error.bad_chat_line': 'A line cannot be empty or longer than 140 characters.',
  'chat.error.rate_limited': 'You are writing too fast: wait a few seconds.',
  'error.timed_out': 'A moderator timed you out of the chat for now.',
  'error.chat_forbidden': 'You cannot write in this room.',
  'error.not_a_moderator': 'Only moderators can do that.',
  'error.chat_line_not_found': 'That line is gone.',
};
