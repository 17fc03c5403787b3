import ArgumentParser
import CheckInModels
import ControlProtocol
import DeviceConfig
import Glibc
import LinuxIO
import MQTTLive
import TerminalQRCode

/// `lifesignalctl pair`: on the person's device, what a watcher needs to follow it, as a short
/// code and as a QR code (docs/dependents.md, "Pairing").
struct Pair: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the pairing code a watcher's device adds this device with.",
        discussion: """
            Reads the configuration as lifesignald does and prints a code (and the same as a QR \
            code) saying how a watcher can follow this device: through the MQTT broker ([mqtt]), \
            the LifeSignal backend ([uplink]) or the healthchecks check-in check ([healthchecks]), \
            the person's name, and how long the watcher waits for word from this device before \
            showing it silent. On the watcher: lifesignalctl dependents add CODE.

            The code holds no secret: it names a topic, a backend id or a check, which a watcher can \
            read only with its own access to the broker, backend or healthchecks project.
            """)
    @Option(name: .shortAndLong, help: "Config file (default: the one lifesignald would use).")
    var config: String?
    @Option(name: .long, help: "How the watcher follows this device: mqtt, backend or healthchecks (default: the first configured).")
    var source: PairingCodeSource.Kind?
    @Option(name: .long, help: "The person's name as the watcher shows it (default: [mqtt] device_name, else the host name).")
    var name: String?
    @Flag(name: .long, help: "Print the code as JSON only (code, source, address, name, heartbeat_seconds).")
    var json = false
    @Flag(name: .long, help: "Draw the QR code with # characters instead of Unicode blocks.")
    var ascii = false

    func run() throws {
        let configuration: DeviceConfiguration
        switch ConfigSource.load(explicitPath: config, environment: ProcessEnvironment.current) {
        case let .failure(failure):
            printToStandardError("lifesignalctl: \(failure.path) is not valid: \(failure.message)")
            throw ExitCode(78)
        case let .success(loaded):
            configuration = loaded.configuration
        }
        switch PairingCodeSource.code(configuration, kind: source, name: name, lookups: .live) {
        case let .failure(failure):
            printToStandardError("lifesignalctl pair: " + TerminalText.escapedLines(failure.message))
            throw ExitCode(78)
        case let .success(code):
            if json {
                print(PairingOutput.json(code))
            } else {
                let environment = ProcessEnvironment.current
                let style: PairingOutput.Style = ascii ? .ascii
                    : isatty(STDOUT_FILENO) == 1 && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb" ? .colours : .plain
                print(PairingOutput.text(code, qrCode: Result { () throws(QRUnavailable) in try PairingOutput.qrCode(code) }, style: style))
            }
        }
    }
}

extension PairingCodeSource.Lookups {
    /// The daemon's own derivation of its broker id (`MQTTDeviceID`), the host name, the backend.
    static var live: Self {
        Self(derivedMQTTID: { MQTTDeviceID.derived() }, hostName: { currentHostName() ?? "lifesignal" },
             backendDevice: BackendDeviceLookup.device)
    }
}

/// Why there is no QR code (the text code is printed all the same).
struct QRUnavailable: Error {
    var message: String
}

/// What `pair` prints.
enum PairingOutput {
    enum Style { case colours, plain, ascii }

    /// The QR code of the code's text (upper case, so libqrencode uses its dense alphanumeric mode).
    static func qrCode(_ code: PairingCode, load: () throws(LibraryUnavailable) -> LibQRencode = { () throws(LibraryUnavailable) in
        try LibQRencode.load()
    }) throws(QRUnavailable) -> QRMatrix {
        do {
            return try load().encode(code.text)
        } catch let error as LibraryUnavailable {
            throw QRUnavailable(message: error.description)
        } catch {
            throw QRUnavailable(message: "\(error)")
        }
    }

    static func text(_ code: PairingCode, qrCode: Result<QRMatrix, QRUnavailable>, style: Style) -> String {
        let source = switch code.source {
        case let .mqtt(topic): "the MQTT broker, topic \(topic)"
        case let .backend(id): "the LifeSignal backend, device \(id)"
        case let .healthchecks(check): "healthchecks, check \(check)"
        }
        var lines = [
            "Pairing code for \(TerminalText.quoted(code.name)), followed through \(TerminalText.escaped(source)); shown silent "
                + "after \(DurationText.humane(code.heartbeat)) without word from this device:",
            "",
            "    \(code.text)",
            "",
        ]
        switch qrCode {
        case let .success(matrix):
            lines += style == .ascii ? QRRendering.ascii(matrix) : QRRendering.halfBlocks(matrix, colours: style == .colours)
        case let .failure(unavailable):
            lines.append("(No QR code: \(TerminalText.escaped(unavailable.message)).)")
        }
        lines += ["", "On the watcher's device, run:", "    lifesignalctl dependents add \(code.text)"]
        return lines.joined(separator: "\n")
    }

    /// `{"code", "source", "address", "name", "heartbeat_seconds"}`.
    static func json(_ code: PairingCode) -> String {
        ControlCoding.encode(Shape(code: code.text, source: code.source.kind, address: code.source.address, name: code.name,
                                   heartbeatSeconds: code.heartbeat.components.seconds), pretty: true)
    }

    struct Shape: Encodable {
        var code: String
        var source: String
        var address: String
        var name: String
        var heartbeatSeconds: Int64

        enum CodingKeys: String, CodingKey {
            case code, source, address, name
            case heartbeatSeconds = "heartbeat_seconds"
        }
    }
}
