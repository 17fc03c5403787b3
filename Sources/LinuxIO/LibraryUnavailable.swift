/// A library the daemon loads only for some configurations (libcurl for the uplink, libmosquitto
/// for MQTT) could not be loaded or set up: that part cannot run on this system as installed. The
/// message names the library, the step that failed, the loader's or the library's own reason, and
/// the Debian package that fixes it.
public struct LibraryUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Step: Hashable, Sendable {
        /// dlopen of the library failed (missing, unreadable, wrong architecture).
        case open
        /// The library has no such function (another library, or too old).
        case function(String)
        /// The library's own global initialiser failed.
        case initialization
    }

    /// What the library is to the device: its name as people know it ("libcurl"), its global
    /// initialiser ("curl_global_init"), who needs it ("the uplink") and the fix to offer.
    public struct Role: Hashable, Sendable {
        public var name: String
        public var initializer: String
        public var user: String
        public var fix: String

        public init(name: String, initializer: String, user: String, fix: String) {
            self.name = name
            self.initializer = initializer
            self.user = user
            self.fix = fix
        }
    }

    public var role: Role
    public var library: String
    public var step: Step
    /// The dynamic loader's or the library's own message.
    public var reason: String

    public init(_ role: Role, library: String, step: Step, reason: String) {
        self.role = role
        self.library = library
        self.step = step
        self.reason = reason
    }

    public init(_ role: Role, _ error: DynamicLibraryError) {
        let step: Step = switch error.step {
        case .open: .open
        case let .function(name): .function(name)
        }
        self.init(role, library: error.library, step: step, reason: error.reason)
    }

    public var description: String {
        switch step {
        case .open:
            "cannot load \(library): \(reason); \(role.fix)"
        case let .function(name):
            "\(library) has no function \(name) (\(reason)), so it is not a \(role.name) \(role.user) can use; \(role.fix)"
        case .initialization:
            "\(role.name) (\(library)) failed to initialise (\(role.initializer): \(reason)); \(role.fix)"
        }
    }
}
