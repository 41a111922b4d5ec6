// SDKs on a relay that follows its Fanion upstream by polling answer as on the upstream
// (test/helpers/relay-sdk.ts says what is compared, and how fast changes must arrive).
import t from 'tap';
import { relayAnswersAsUpstream } from '../../helpers/relay-sdk.js';

t.test('a relay following its upstream by polling: SDKs on it answer as on the upstream', (t) => relayAnswersAsUpstream(t, 'polling'));
