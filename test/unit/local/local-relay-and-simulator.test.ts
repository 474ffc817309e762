import { describe, expect, it } from 'vitest';
import { LocalPortError, localRelayAndSimulator } from '../../../local/simulator-wiring';

describe('where npm run sim finds npm start -- --simulator', () => {
  it('takes the flags first, then PORT and SIM_PORT as npm start reads them, then 3000 and 4010', () => {
    // Assess
    expect(localRelayAndSimulator({}, {})).toEqual({
      relayUrl: 'http://localhost:3000',
      simUrl: 'http://127.0.0.1:4010',
    });
    expect(localRelayAndSimulator({}, { PORT: '3100', SIM_PORT: '4100' })).toEqual({
      relayUrl: 'http://localhost:3100',
      simUrl: 'http://127.0.0.1:4100',
    });
    expect(
      localRelayAndSimulator(
        { relay: 'http://localhost:3200', sim: 'http://127.0.0.1:4200' },
        { PORT: '3100', SIM_PORT: '4100' },
      ),
    ).toEqual({ relayUrl: 'http://localhost:3200', simUrl: 'http://127.0.0.1:4200' });
    // An empty variable is an unset one, as npm start reads SIM_PORT.
    expect(localRelayAndSimulator({}, { PORT: '', SIM_PORT: '' }).simUrl).toBe('http://127.0.0.1:4010');
  });

  it('refuses a value that is not a port, and a 0 (npm start picked a free port) with the flag to use', () => {
    // Assess
    expect(() => localRelayAndSimulator({}, { PORT: 'abc' })).toThrow(
      new LocalPortError('PORT must be a port number, got "abc"'),
    );
    expect(() => localRelayAndSimulator({}, { SIM_PORT: '70000' })).toThrow(LocalPortError);
    expect(() => localRelayAndSimulator({}, { SIM_PORT: '0' })).toThrow(
      /SIM_PORT=0: .* pass its URL with --sim/,
    );
    // With its flag given, the variable is not read.
    expect(localRelayAndSimulator({ relay: 'http://localhost:3200' }, { PORT: 'x' }).relayUrl).toBe(
      'http://localhost:3200',
    );
  });
});
