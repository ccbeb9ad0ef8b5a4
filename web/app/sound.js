// The game's sounds, made with the Web Audio API (no files to load): a move, a capture,
// the start and the end of one's game, and one's clock running low. Silent when the
// player turned sound off in the settings.

import { prefs } from './prefs.js';

// Each sound: notes of [frequency Hz, seconds], played one after the other.
const NOTES = {
  move: [[440, 0.06]],
  capture: [[330, 0.05], [494, 0.08]],
  start: [[523, 0.09], [659, 0.09], [784, 0.14]],
  end: [[784, 0.1], [659, 0.1], [523, 0.18]],
  low: [[880, 0.07], [0, 0.05], [880, 0.07]],
};

let audio = null;

/** Plays one of the sounds above, unless sound is off or the browser has no audio. */
export function play(kind) {
  const notes = NOTES[kind];
  if (!notes || !prefs().sound || typeof AudioContext === 'undefined') return;
  audio = audio || new AudioContext();
  if (audio.state === 'suspended') audio.resume().catch(() => {});
  let at = audio.currentTime;
  for (const [freq, secs] of notes) {
    if (freq) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.12, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + secs);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + secs);
    }
    at += secs;
  }
}
