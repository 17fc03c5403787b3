import DeviceConfig
import LinuxIO
import MQTTClient
import MQTTFeature
import MQTTLive

/// `lifesignalctl doctor`'s MQTT checks: libmosquitto loads, the password file is usable, and the
/// broker accepts the device's credentials and a message on its own topics. Each says what to fix.
enum MQTTProbe {
    /// No check waits longer: doctor must answer (the connection's own keep-alive bounds a silent broker).
    static let longestWait = Duration.seconds(10)

    static func check(_ configuration: DeviceConfiguration) -> [DoctorFinding] {
        // Without [mqtt] there is nothing to check (and libmosquitto is not loaded).
        guard let mqtt = configuration.mqtt else { return [] }
        let library: LibMosquitto
        do {
            library = try LibMosquitto.shared()
        } catch {
            return [.problem("libmosquitto", error.description, fix: "sudo apt install libmosquitto1")]
        }
        var findings = [DoctorFinding.ok("libmosquitto", library.versionText)]
        let deviceID = mqtt.deviceID ?? MQTTDeviceID.derived()
        var settings: MQTTConnectionSettings
        do {
            settings = try MQTTConnectionSettings(mqtt, deviceID: deviceID)
        } catch {
            return findings + [.problem("mqtt password", error.message,
                                        fix: "fix \(mqtt.passwordFile ?? "[mqtt] password_file") as the message says "
                                            + "(run doctor with sudo to read it as the service does)")]
        }
        if let path = mqtt.passwordFile {
            findings.append(.ok("mqtt password", "\(path) is readable and not accessible to other users"))
        }
        // A client id of its own: with the daemon's, the broker would push the daemon off (and
        // publish its last will).
        settings.clientID += "-doctor"
        settings.keepAlive = 5
        let identity = MQTTIdentity(mqtt, derivedID: deviceID)
        let message = MQTTMessage(topic: identity.baseTopic + "/doctor", payload: "lifesignalctl doctor", retain: false)
        let who = mqtt.username.map { "user \($0)" } ?? "anonymous clients"
        switch MQTTReachability.check(settings, library: library, publishing: message, timeout: longestWait) {
        case .success:
            findings.append(.ok("mqtt broker", "\(settings.broker) accepts \(who) and took a message on \(message.topic); "
                                + "Home Assistant finds the device (id \(identity.deviceID)) on \(identity.discoveryTopic)"))
        case let .failure(failure):
            findings.append(.problem("mqtt broker", failure.message, fix: fix(for: failure, settings)))
        }
        return findings
    }

    static func fix(for failure: MQTTFailure, _ settings: MQTTConnectionSettings) -> String {
        switch failure.kind {
        case .unreachable:
            "start the broker (on Home Assistant: Settings → Add-ons → Mosquitto broker) or correct [mqtt] host and port"
        case .refused:
            "check [mqtt] username and the password in password_file against the broker's users "
                + "(Mosquitto: mosquitto_passwd; Home Assistant's add-on: its Logins or a Home Assistant user)"
        case .tls:
            "check [mqtt] tls and ca_file: ca_file must hold the CA that signed the broker's certificate, which must name \(settings.host)"
        case .noAnswer:
            "something at \(settings.broker) took the connection but never answered as an MQTT broker: check [mqtt] port (and tls)"
        case .lost, .notConnected, .rejected:
            "see the broker's log; the device retries by itself"
        }
    }
}
