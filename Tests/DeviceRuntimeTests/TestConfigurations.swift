import DeviceConfig
import TestSupport

extension DeviceConfiguration {
    /// A device on the simulated board (a clean switch, no terminal view) with its store and control
    /// socket in `directory`, a short acknowledgement, debug logs, and alerts off unless a test turns
    /// them on.
    static func forTests(in directory: TemporaryDirectory) -> DeviceConfiguration {
        var configuration = DeviceConfiguration(storePath: directory.file("state/store.sqlite"),
                                                controlSocket: directory.file("run/control.sock"))
        configuration.simulator = SimulatorConfiguration(chatterEdges: 0, terminal: .off)
        configuration.acknowledgement = .milliseconds(20)
        configuration.logLevel = .debug
        configuration.alert.enabled = false
        return configuration
    }

    /// `[uplink]` to `backend` with `token` in a token file, retrying within 100 ms (the backoff's
    /// cap: tests wait for retries, never for their timing).
    mutating func upload(to backend: LoopbackBackend, token: String = LoopbackBackend.token, batchSize: Int = 500) throws {
        uplink = UplinkConfiguration(url: backend.baseURL, tokenFile: try backend.tokenFile(token), batchSize: batchSize,
                                     timeout: .seconds(10), retryMax: .milliseconds(100))
    }

    /// `[healthchecks]` pinging `check` (and/or `heartbeat`) on `backend`'s healthchecks endpoints.
    mutating func ping(_ backend: LoopbackBackend, check: String?, heartbeat: String? = nil,
                       heartbeatPeriod: Duration = .seconds(900), lateAfter: Duration = .seconds(600)) {
        healthchecks = HealthchecksConfiguration(
            checkInURL: check.map { "\(backend.baseURL)/ping/\($0)" }, heartbeatURL: heartbeat.map { "\(backend.baseURL)/ping/\($0)" },
            heartbeat: heartbeatPeriod, timeout: .seconds(10), retryMax: .milliseconds(100), lateAfter: lateAfter)
    }
}
