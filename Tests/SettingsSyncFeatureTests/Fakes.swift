import CheckInModels
import CheckInStoreClient
import Synchronization
import TestSupport
import UplinkClient

/// The backend's settings as a script: each fetch and each offer takes the next scripted answer.
/// Every offer is kept.
final class FakeSettingsBackend: Sendable {
    private struct Script {
        var fetches: [Result<RemoteSettings, UplinkFailure>] = []
        var pushes: [Result<SettingsPushOutcome, UplinkFailure>] = []
        var fetchCount = 0
        var offered: [RemoteSettings] = []
    }

    private let state = Mutex(Script())
    /// Shut: a fetch waits here before it answers.
    let gate = Gate()

    func fetch(_ results: Result<RemoteSettings, UplinkFailure>...) { state.withLock { $0.fetches += results } }
    func push(_ results: Result<SettingsPushOutcome, UplinkFailure>...) { state.withLock { $0.pushes += results } }
    var fetchCount: Int { state.withLock { $0.fetchCount } }
    var offered: [RemoteSettings] { state.withLock { $0.offered } }

    var client: UplinkClient {
        var client = UplinkClient.failing()
        client.fetchSettings = { [self] in
            let answer = state.withLock { state -> Result<RemoteSettings, UplinkFailure>? in
                state.fetchCount += 1
                return state.fetches.isEmpty ? nil : state.fetches.removeFirst()
            }
            await gate.pass()
            return answer ?? .failure(.unexpected("FakeSettingsBackend.fetchSettings (no answer scripted)"))
        }
        client.pushSettings = { [self] offered in
            let answer = state.withLock { state -> Result<SettingsPushOutcome, UplinkFailure>? in
                state.offered.append(offered)
                return state.pushes.isEmpty ? nil : state.pushes.removeFirst()
            }
            return answer ?? .failure(.unexpected("FakeSettingsBackend.pushSettings (no answer scripted)"))
        }
        return client
    }
}

/// The store's settings: every save is kept; saving can fail.
final class FakeSettingsStore: Sendable {
    private let state = Mutex<(saved: [StoredSettings], failure: StoreFailure?)>(([], nil))

    func fail(with failure: StoreFailure?) { state.withLock { $0.failure = failure } }
    var saved: [StoredSettings] { state.withLock { $0.saved } }

    var client: CheckInStoreClient {
        var client = CheckInStoreClient.failing
        client.saveSettings = { [self] settings throws(StoreFailure) in
            try state.withLock { state throws(StoreFailure) in
                if let failure = state.failure { throw failure }
                state.saved.append(settings)
            }
        }
        return client
    }
}
