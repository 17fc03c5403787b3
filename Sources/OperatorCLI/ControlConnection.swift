import ControlProtocol
import ControlSocket
import DeviceConfig
import Glibc

/// Where `lifesignalctl` finds the daemon, and one request/response exchange with it.
struct ControlConnection {
    /// The socket an installed service uses (systemd `RuntimeDirectory=lifesignal`).
    static let serviceSocket = "/run/lifesignal/control.sock"

    let socketPath: String

    /// `--socket`, else `$LIFESIGNAL_SOCKET`, else the installed service's socket if it exists
    /// (or is there but out of this user's reach: they are told so, not sent elsewhere), else the
    /// path a daemon started by this user uses by default.
    init(explicit: String?, environment: [String: String]) {
        if let explicit, !explicit.isEmpty {
            socketPath = explicit
        } else if let fromEnvironment = environment["LIFESIGNAL_SOCKET"], !fromEnvironment.isEmpty {
            socketPath = fromEnvironment
        } else if access(Self.serviceSocket, F_OK) == 0 || errno == EACCES {
            socketPath = Self.serviceSocket
        } else {
            socketPath = DeviceConfiguration.defaultControlSocket(environment: environment)
        }
    }

    /// Sends one request; a daemon-side refusal comes back as `CLIError.refused`.
    func send(_ request: ControlRequest, timeout: Duration = .seconds(15)) throws(CLIError) -> ControlResponse {
        let line: String
        do {
            line = try ControlClient.send(ControlCoding.encode(request), to: socketPath, timeout: timeout)
        } catch {
            throw .unreachable("\(error)")
        }
        switch ControlCoding.decode(ControlResponse.self, from: line) {
        case let .failure(problem):
            throw .unreachable("unexpected answer on \(socketPath): \(problem.message)")
        case let .success(response):
            guard response.ok else { throw .refused(response.error ?? "the daemon refused without saying why") }
            return response
        }
    }
}

/// How `lifesignalctl` fails; each maps to a documented exit code.
enum CLIError: Error {
    /// The daemon answered with an error (exit 1).
    case refused(String)
    /// The daemon could not be reached (exit 69, EX_UNAVAILABLE).
    case unreachable(String)

    var exitCode: Int32 {
        switch self {
        case .refused: 1
        case .unreachable: 69
        }
    }

    var message: String {
        switch self {
        case let .refused(message), let .unreachable(message): message
        }
    }
}
