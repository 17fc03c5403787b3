import ArgumentParser
import CheckInModels
import DeviceAPI
import DeviceConfig
import HealthchecksSyncFeature
import MQTTFeature

/// What `lifesignalctl pair` gives a watcher: the way it can follow this device (one of the
/// configured sources), the person's name and how long the watcher waits before showing them
/// `silent` (docs/dependents.md, "Pairing").
enum PairingCodeSource {
    enum Kind: String, CaseIterable, ExpressibleByArgument {
        case mqtt, backend, healthchecks
    }

    /// What `pair` looks up outside the configuration: the id the daemon derives for the broker,
    /// the host name, and the device's id at the backend (`GET /v1/device`).
    struct Lookups {
        var derivedMQTTID: () -> String
        var hostName: () -> String
        var backendDevice: (UplinkConfiguration) -> Result<DeviceIdentity, PairFailure>
    }

    /// The name used when neither `--name` nor `[mqtt] device_name` gives one.
    static let unnamedMQTTDevice = MQTTConfiguration(host: "-").deviceName

    static func code(_ configuration: DeviceConfiguration, kind requested: Kind?, name requestedName: String?,
                     lookups: Lookups) -> Result<PairingCode, PairFailure> {
        let configured = Kind.allCases.filter { isConfigured($0, configuration) }
        guard let kind = requested ?? configured.first else {
            return .failure(PairFailure("this device has no way a watcher can follow it: a watcher needs one of [mqtt] (a broker "
                                        + "both devices reach), [uplink] (the LifeSignal backend) or [healthchecks] with a check-in "
                                        + "check; configure one, restart lifesignald, then run lifesignalctl pair again"))
        }
        guard configured.contains(kind) else {
            let others = configured.isEmpty ? "" : "; it can pair through " + configured.map(\.rawValue).joined(separator: " or ")
            return .failure(PairFailure("--source \(kind.rawValue): this device has no \(section(kind))\(others)"))
        }
        let source: DependentSource
        let heartbeat: Duration
        /// The backend's name for the device, the best default where there is one.
        var knownName: String?
        if kind == .mqtt, let mqtt = configuration.mqtt {
            source = .mqtt(baseTopic: MQTTIdentity(mqtt, derivedID: mqtt.deviceID ?? lookups.derivedMQTTID()).baseTopic)
            heartbeat = mqttAllowance(keepAlive: mqtt.keepAlive)
        } else if kind == .backend, let uplink = configuration.uplink {
            switch lookups.backendDevice(uplink) {
            case let .success(device):
                source = .backend(id: device.id)
                knownName = device.name
            case let .failure(failure): return .failure(failure)
            }
            heartbeat = beatAllowance(uplink.heartbeat)
        } else if let healthchecks = configuration.healthchecks, let check = checkInCheck(healthchecks) {
            source = .healthchecks(check: check)
            heartbeat = beatAllowance(healthchecks.heartbeat)
        } else {
            return .failure(PairFailure("--source \(kind.rawValue): this device has no \(section(kind))"))
        }
        let name = (requestedName ?? knownName ?? defaultName(configuration, hostName: lookups.hostName)).trimmingSpaces
        let code = PairingCode(source: source, name: name, heartbeat: heartbeat)
        if let problem = code.problem {
            let fix = problem.hasPrefix("the name") ? (requestedName == nil ? "; give one with --name" : "") : ""
            return .failure(PairFailure("cannot make a pairing code: \(problem)\(fix)"))
        }
        return .success(code)
    }

    /// The broker publishes the device's last will (`offline`) 1.5 × keep_alive after it last heard
    /// from it; the watcher allows twice that, so one late keep-alive never makes anyone silent
    /// (60 s, the default keep-alive: 3 minutes, `DependentEntry.defaultHeartbeat`).
    static func mqttAllowance(keepAlive: Duration) -> Duration {
        clamped(keepAlive * 3)
    }

    /// The device beats every `interval` (`[uplink]`/`[healthchecks] heartbeat`): two missed beats
    /// make it silent, one never does.
    static func beatAllowance(_ interval: Duration) -> Duration {
        clamped(interval * 2)
    }

    private static func clamped(_ allowance: Duration) -> Duration {
        let seconds = Duration.seconds(allowance.components.seconds)
        return min(max(seconds, PairingCode.heartbeatRange.lowerBound), PairingCode.heartbeatRange.upperBound)
    }

    static func isConfigured(_ kind: Kind, _ configuration: DeviceConfiguration) -> Bool {
        switch kind {
        case .mqtt: configuration.mqtt != nil
        case .backend: configuration.uplink != nil
        case .healthchecks: configuration.healthchecks.flatMap(checkInCheck) != nil
        }
    }

    private static func section(_ kind: Kind) -> String {
        switch kind {
        case .mqtt: "[mqtt] section"
        case .backend: "[uplink] section (the LifeSignal backend)"
        case .healthchecks: "healthchecks check-in check ([healthchecks] api_key_file or check_in_url)"
        }
    }

    /// The check-in check the watcher reads: the device's own (`<slug_prefix>-check-in`, as
    /// `CheckTimings` names it), else the one in the check-in ping URL (its UUID, or its slug).
    static func checkInCheck(_ healthchecks: HealthchecksConfiguration) -> String? {
        if let management = healthchecks.management {
            return CheckTimings.specs(settings: .default, heartbeat: healthchecks.heartbeat, slugPrefix: management.slugPrefix)
                .first { $0.role == .checkIn }?.slug
        }
        guard let url = healthchecks.checkInURL else { return nil }
        let last = url.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty ? nil : last
    }

    /// `[mqtt] device_name` when it was set, else the host name.
    static func defaultName(_ configuration: DeviceConfiguration, hostName: () -> String) -> String {
        if let name = configuration.mqtt?.deviceName, name != unnamedMQTTDevice { return name }
        return hostName()
    }
}

/// Why `pair` cannot make a code, and what to do.
struct PairFailure: Error, Hashable {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
