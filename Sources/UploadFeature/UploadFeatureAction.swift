public import CheckInModels
public import CheckInStoreClient
public import UplinkClient

extension UploadFeature {
    /// Everything that can happen to an uploader, named for what happened.
    public enum Action: Equatable, Sendable {
        /// Drain what is already queued, then wait for new rows.
        case start
        /// Stop: every effect is cancelled, and an answer still on its way is dropped (its rows stay
        /// queued unless already recorded as acknowledged; the target de-duplicates by id).
        case stop
        /// A row was stored durably: upload it now, unless a backoff is running (the retry reads
        /// the queue anyway). After a permanent failure this is the one new attempt.
        case itemStored
        /// The network may be back (a default route or an address appeared): a retry waiting out
        /// its backoff happens now. A permanent failure still waits for a new row or a restart.
        case networkChanged
        /// The backoff after a transient failure has passed.
        case retryDue

        // MARK: Effect responses
        /// The oldest pending rows, at most a batch.
        case batchRead(Result<[Item], StoreFailure>)
        /// The target's answer to the batch in flight.
        case batchSent(Result<UploadOutcome, UplinkFailure>)
        /// The answer is recorded in the store: how many rows were newly marked uploaded.
        case answerRecorded(Result<Int, StoreFailure>)

        case delegate(Delegate)

        /// What the parent acts on.
        public enum Delegate: Equatable, Sendable {
            /// The oldest row the target has not acknowledged, as last read (nil: the queue is
            /// empty). Told when the head changes, not on every read.
            case oldestPendingChanged(Item?)
            /// The target acknowledged these rows and they are marked uploaded.
            case acknowledged([CheckInID])
            /// An attempt failed; transient failures are retried on the backoff, permanent ones wait.
            case failed(UplinkFailure)
            /// An upload succeeded after failures: the target is reachable again, so other syncs
            /// (the notifications) need not wait for their own timers.
            case reconnected
        }
    }
}
