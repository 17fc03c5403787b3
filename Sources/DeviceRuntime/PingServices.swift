import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import ControlProtocol
import NotificationsFeature
import DeviceConfig
import Logging
import UplinkClient

/// The ping side of the uplink: the listener that brings responders' pings in, and the uploader
/// that takes the user's answers out (the check-in `Uploader`'s loop over the responses' queue).
@MainActor
final class PingServices {
    let responseQueue: UploadQueue<PingResponse>
    let responseUploader: Uploader<PingResponse>
    private(set) var listener: PingListener?

    init(uploader: CheckInUploader, configuration: UplinkConfiguration, store: StoreSupervisor, logger: Logger) {
        responseQueue = .pingResponses(store)
        responseUploader = Uploader(
            client: uploader.client, noun: "ping responses", send: { [client = uploader.client] batch in
                await client.respondToPings(batch).map { UploadOutcome(acknowledged: $0) }
            }, queue: responseQueue,
            clock: uploader.clock, policy: Uplink.retryPolicy(configuration), batchSize: configuration.batchSize,
            logger: logger)
    }

    /// Starts the response upload and the listener, which hands new pings to the feature and asks
    /// the notifications to sync (the backend has a "ping" notification for each ping).
    func start(feature: Store<CheckInFeature>, notifications: Store<NotificationsFeature>, storeClient: CheckInStoreClient,
               logger: Logger) {
        responseUploader.start()
        let listener = PingListener(
            client: responseUploader.client, storeClient: storeClient, clock: responseUploader.clock,
            policy: responseUploader.policy, logger: logger,
            deliver: { [feature, notifications] pings in
                feature.send(.pingsReceived(pings))
                notifications.send(.refreshRequested)
            })
        listener.start()
        self.listener = listener
    }

    func stop() {
        listener?.stop()
        responseUploader.stop()
    }

    /// `lifesignalctl status` / `pings`: what is pending, what waits for upload, how listening goes.
    func report(pending: [PendingPing]) async -> PingsReport {
        PingsReport(pending: pending, responsesWaiting: (try? await responseQueue.depth()) ?? -1,
                    listener: listener?.state.rawValue, listenerMessage: listener?.lastMessage,
                    responseUpload: responseUploader.report)
    }
}
