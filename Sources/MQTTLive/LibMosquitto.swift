import CMosquitto
public import LinuxIO

/// libmosquitto, loaded at run time with `dlopen`, and the table of the functions the MQTT
/// connection calls.
///
/// lifesignald is not linked against libmosquitto: it brings OpenSSL (libssl3, libcrypto3), whose
/// mapping and constructors a device without `[mqtt]` would pay for in memory and never use. The
/// library is loaded the first time an `MQTTConnection` is made, i.e. only when `[mqtt]` is
/// configured (or by `lifesignalctl doctor`). Every function pointer's type comes from mosquitto.h
/// (see CMosquitto/shim.h).
public final class LibMosquitto: @unchecked Sendable {  // immutable after init: a handle and pointers to code
    /// The soname of libmosquitto 1 (Debian package libmosquitto1), the only ABI this is written for.
    public static let soname = "libmosquitto.so.1"

    private let library: DynamicLibrary
    let libInit: lifesignal_mosquitto_lib_init_fn
    let libVersion: lifesignal_mosquitto_lib_version_fn
    let new: lifesignal_mosquitto_new_fn
    let destroy: lifesignal_mosquitto_destroy_fn
    let intOption: lifesignal_mosquitto_int_option_fn
    let usernamePasswordSet: lifesignal_mosquitto_username_pw_set_fn
    let willSet: lifesignal_mosquitto_will_set_fn
    let tlsSet: lifesignal_mosquitto_tls_set_fn
    let connectBindAsync: lifesignal_mosquitto_connect_bind_async_fn
    let disconnect: lifesignal_mosquitto_disconnect_fn
    let publish: lifesignal_mosquitto_publish_fn
    let subscribe: lifesignal_mosquitto_subscribe_fn
    let socket: lifesignal_mosquitto_socket_fn
    let loopRead: lifesignal_mosquitto_loop_read_fn
    let loopWrite: lifesignal_mosquitto_loop_write_fn
    let loopMisc: lifesignal_mosquitto_loop_misc_fn
    let wantWrite: lifesignal_mosquitto_want_write_fn
    let connectCallbackSet: lifesignal_mosquitto_connect_callback_set_fn
    let disconnectCallbackSet: lifesignal_mosquitto_disconnect_callback_set_fn
    let publishCallbackSet: lifesignal_mosquitto_publish_callback_set_fn
    let subscribeCallbackSet: lifesignal_mosquitto_subscribe_callback_set_fn
    let messageCallbackSet: lifesignal_mosquitto_message_callback_set_fn
    let logCallbackSet: lifesignal_mosquitto_log_callback_set_fn
    let strerror: lifesignal_mosquitto_strerror_fn
    let connackString: lifesignal_mosquitto_connack_string_fn

    /// The process's libmosquitto, loaded and `mosquitto_lib_init`ed once, on first use. It stays
    /// loaded for the life of the process (OpenSSL keeps global state that must not be unmapped).
    public static func shared() throws(LibMosquittoUnavailable) -> LibMosquitto {
        try process.get()
    }

    private static let process = Result { () throws(LibMosquittoUnavailable) -> LibMosquitto in
        let mosquitto = try load()
        let code = mosquitto.libInit()
        guard code == Int32(MOSQ_ERR_SUCCESS.rawValue) else {
            throw LibMosquittoUnavailable(.libmosquitto, library: soname, step: .initialization, reason: mosquitto.message(code))
        }
        return mosquitto
    }

    /// Opens `soname` and resolves every function of the table; nothing is called yet. A missing
    /// library or function is an error naming it, never a crash at the first connection.
    public static func load(soname: String = soname) throws(LibMosquittoUnavailable) -> LibMosquitto {
        do {
            return try LibMosquitto(library: DynamicLibrary.open(soname))
        } catch {
            throw LibMosquittoUnavailable(.libmosquitto, error)
        }
    }

    private init(library: DynamicLibrary) throws(DynamicLibraryError) {
        self.library = library
        libInit = try library.function("mosquitto_lib_init")
        libVersion = try library.function("mosquitto_lib_version")
        new = try library.function("mosquitto_new")
        destroy = try library.function("mosquitto_destroy")
        intOption = try library.function("mosquitto_int_option")
        usernamePasswordSet = try library.function("mosquitto_username_pw_set")
        willSet = try library.function("mosquitto_will_set")
        tlsSet = try library.function("mosquitto_tls_set")
        connectBindAsync = try library.function("mosquitto_connect_bind_async")
        disconnect = try library.function("mosquitto_disconnect")
        publish = try library.function("mosquitto_publish")
        subscribe = try library.function("mosquitto_subscribe")
        socket = try library.function("mosquitto_socket")
        loopRead = try library.function("mosquitto_loop_read")
        loopWrite = try library.function("mosquitto_loop_write")
        loopMisc = try library.function("mosquitto_loop_misc")
        wantWrite = try library.function("mosquitto_want_write")
        connectCallbackSet = try library.function("mosquitto_connect_callback_set")
        disconnectCallbackSet = try library.function("mosquitto_disconnect_callback_set")
        publishCallbackSet = try library.function("mosquitto_publish_callback_set")
        subscribeCallbackSet = try library.function("mosquitto_subscribe_callback_set")
        messageCallbackSet = try library.function("mosquitto_message_callback_set")
        logCallbackSet = try library.function("mosquitto_log_callback_set")
        strerror = try library.function("mosquitto_strerror")
        connackString = try library.function("mosquitto_connack_string")
    }

    /// "libmosquitto 2.0.11".
    public var versionText: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = libVersion(&major, &minor, &revision)
        return "libmosquitto \(major).\(minor).\(revision)"
    }

    /// libmosquitto's message for one of its error codes.
    func message(_ code: Int32) -> String { text(strerror(code)) }

    /// libmosquitto's message for a CONNACK code (MQTT 3.1.1).
    func connackMessage(_ code: Int32) -> String { text(connackString(code)) }

    /// libmosquitto's strings are static and never NULL; the function pointers' types just do not say so.
    private func text(_ string: UnsafePointer<CChar>?) -> String {
        string.map { String(cString: $0) } ?? "(no message)"
    }
}

/// libmosquitto could not be loaded or set up: [mqtt] cannot run on this system as installed.
public typealias LibMosquittoUnavailable = LibraryUnavailable

extension LibraryUnavailable.Role {
    static let libmosquitto = Self(
        name: "libmosquitto", initializer: "mosquitto_lib_init", user: "MQTT",
        fix: "[mqtt] needs libmosquitto: install the Debian package libmosquitto1 "
            + "(apt install libmosquitto1), or remove the [mqtt] section")
}
