import { MemoryStore } from '../../shared/adapters/memory/memory-store';
import { describeRelayStoreContract } from './relay-store.contract';

describeRelayStoreContract('the in-memory store', () => new MemoryStore());
