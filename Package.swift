// swift-tools-version:6.1
// LifeSignal Device: a check-in button and status LEDs for people who live alone.
//
// Modules by responsibility (see docs/architecture.md):
//   pure logic        ComposableCore, Backoff, CheckInModels, CheckInFeature, NotificationsFeature, UploadFeature,
//                     HeartbeatFeature, PingListenerFeature, SettingsSyncFeature, HealthchecksSyncFeature, PowerFeature, LEDLanguage,
//                     MQTTFeature, DependentsFeature, RespondersFeature,
//                     ConfigFile, DeviceConfig
//   client interfaces DeviceClock, GPIOClient, CheckInStoreClient, UplinkClient, MQTTClient, DependentsClient, RespondersClient
//   live clients      DeviceClockLive, GPIOSimulated (+ SimulatorTerminal), CheckInStoreLive (over
//                     SQLiteDatabase/CSQLite), GPIOLibgpiod (over CGPIOD), UplinkLive (over libcurl/CCurl,
//                     wire format in DeviceAPI), LinuxIO (eventfd, poll threads; over CLinuxSupport),
//                     TerminalQRCode (over libqrencode/CQRencode, for lifesignalctl only)
//   daemon plumbing   ControlProtocol, ControlSocket, ServiceTree, DeviceRuntime (the composition root), OperatorCLI
//   executables       lifesignald, lifesignalctl, lifesignal-devserver (reference backend, DevServer)
import PackageDescription

/// One set of Swift settings for every target, so the whole tree compiles under the same rules.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

/// Swift 6.3's executor factory (`typealias DefaultExecutorFactory` on the `@main` type) is SPI
/// marked available from future Apple OS versions; without this flag the compiler silently ignores
/// the typealias. Allowed because this is the root package.
let customExecutorSettings: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-availability-checking"])]

/// The shipped executables' release link (BENCHMARKS.md, "Memory and size"): lld packs the ~47,000
/// relative relocations of a static Swift binary into a DT_RELR table (0.9 MB → 7 KB; glibc ≥ 2.36,
/// as in Debian 12 and Raspberry Pi OS bookworm), and nothing is exported dynamically (0.9 MB of
/// symbol names and hashes nobody looks up: no plugin links against the daemon, and a static
/// binary has no runtime backtracer to name frames). No unwind-table index either: nothing in
/// these programs unwinds (Swift's errors are return values, and nothing catches a C++
/// exception), and scripts/build-deb strips the tables themselves (1.5 MB of the daemon, the
/// index 0.35 MB more), so no program header may point at them.
let shippedExecutableLink: [LinkerSetting] = [.unsafeFlags(
    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
     "-Xlinker", "--no-eh-frame-hdr"],
    .when(configuration: .release))]

/// The shipped executables take the little of libstdc++ the Swift runtime uses (strings, a tree,
/// new/delete, guards) from its archive rather than mapping the shared library: its load and
/// relocations made 1.1 MiB of the idle daemon's resident pages for about 70 KB of code used
/// (BENCHMARKS.md, "Memory"). swiftc's static-stdlib link asks for `-lstdc++` ahead of anything a
/// package can add, so a search folder with a linker script by that name, found before GCC's
/// own folder, points it at `libstdc++.a`. The GCC runtime library exception allows this.
let staticCxxRuntime: [LinkerSetting] = [.unsafeFlags(
    ["-L\(Context.packageDirectory)/Sources/lifesignald/link"], .when(configuration: .release))]

/// Each function in a section of its own in release builds: the linker can then drop the ones
/// nothing calls and lay out the ones the daemon runs together (`hotFunctionsFirst`). Without it
/// the compiler puts most of a file's functions in one section, which moves only as a whole.
let functionSections: [SwiftSetting] = [.unsafeFlags(["-function-sections"], .when(configuration: .release))]

/// The daemon's release link puts the functions it runs (`scripts/symbol-order` lists them) first
/// and together, so the pages it touches are few and adjacent: resident memory is the pages a
/// process touched and their neighbours, not the binary's size (BENCHMARKS.md, "Memory"). A stale
/// list costs memory, never correctness; `scripts/symbol-order --check` says how stale it is.
/// The compiler's private functions have no symbol to list: a linker script puts them all (about
/// 40 KB) in front (`Sources/lifesignald/link/private-functions.ld`).
let hotFunctionsFirst: [LinkerSetting] = [.unsafeFlags(
    ["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/lifesignald/hot-functions.order",
     "-Xlinker", "--no-warn-symbol-ordering",
     "-Xlinker", "--script=\(Context.packageDirectory)/Sources/lifesignald/link/private-functions.ld"],
    .when(configuration: .release))]

/// What the daemon links does without the standard library's _StringProcessing (Regex and the
/// string algorithms built on it): linked statically, it and the Unicode name tables it needs are
/// about 1.5 MB of the binary (BENCHMARKS.md, "Memory and size"). The operator's CLI, the
/// reference backend, the benchmark and the tests may use it.
let noStringProcessing: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"])]
let modulesOutsideTheDaemon: Set<String> = ["OperatorCLI", "DevServer", "TestSupport"]

/// The store, effects and scopes are generic over each feature; compiled on their own they run
/// every action through runtime generics (metadata lookups, value witnesses). With cross-module
/// optimisation their bodies are available to the modules that use them, which specialise them
/// for the device's feature (scripts/press-instructions counts the difference).
let specialisedByClients: Set<String> = ["ComposableCore"]
let crossModuleOptimization: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

/// Modules that a press, its store write and its LEDs never run through: start-up (the config),
/// the control socket's protocol, the uplink, MQTT, the watchers and the terminal. Optimised for
/// size (0.45 MB less of the daemon), since their code is most of the binary and its start-up
/// part stays resident (docs/architecture.md, "What the daemon links"); everything on the press's
/// path keeps `-O`.
let optimisedForSize: Set<String> = [
    "ConfigFile", "DeviceConfig", "ControlProtocol", "ControlSocket", "DeviceControl", "JSONCoding", "DeviceAPI",
    "UplinkClient", "UplinkLive", "MQTTClient", "MQTTFeature", "MQTTLive", "DependentsClient", "DependentsFeature",
    "RespondersClient", "RespondersFeature", "SettingsSyncFeature", "HealthchecksSyncFeature", "HeartbeatFeature",
    "PingListenerFeature", "Backoff", "ServiceTree", "SystemdNotify", "SimulatorTerminal", "TerminalQRCode",
    "OperatorCLI", "DevServer",
]
let sizeOptimisation: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))]

extension Target {
    static func module(_ name: String, _ deps: [Target.Dependency] = []) -> Target {
        .target(name: name, dependencies: deps,
                swiftSettings: strictSettings + functionSections + (modulesOutsideTheDaemon.contains(name) ? [] : noStringProcessing)
                    + (specialisedByClients.contains(name) ? crossModuleOptimization : [])
                    + (optimisedForSize.contains(name) ? sizeOptimisation : []))
    }
    static func tests(_ name: String, _ deps: [Target.Dependency]) -> Target {
        .testTarget(name: name, dependencies: deps, swiftSettings: strictSettings)
    }
}

let log: Target.Dependency = .product(name: "Logging", package: "swift-log")
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")
let clocks: Target.Dependency = .product(name: "Clocks", package: "swift-clocks")
let customDump: Target.Dependency = .product(name: "CustomDump", package: "swift-custom-dump")
let concurrencyExtras: Target.Dependency = .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras")

let package = Package(
    name: "lifesignal-device",
    products: [
        .executable(name: "lifesignald", targets: ["lifesignald"]),
        .executable(name: "lifesignalctl", targets: ["lifesignalctl"]),
        // For the fuzzing package in Fuzz/ (libFuzzer builds need a package of their own).
        .library(name: "ControlProtocol", targets: ["ControlProtocol"]),
        .library(name: "DeviceConfig", targets: ["DeviceConfig", "ConfigFile"]),
        .executable(name: "lifesignal-devserver", targets: ["lifesignal-devserver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Test-only: deterministic clocks, readable state diffs, serial executor for async tests.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    ],
    targets: [
        // MARK: Pure logic (no I/O, no Foundation)
        .module("ComposableCore"),
        // What test targets share: TestStore, fakes, seeded random numbers, temporary directories,
        // waiting with a deadline, test clocks, the reference backend on loopback.
        .module("TestSupport", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock", "DevServer", "MQTTClient",
                                customDump, clocks, concurrencyExtras]),
        .module("CheckInModels"),
        .module("Backoff"),
        .module("DeviceClock", ["CheckInModels", "ComposableCore"]),
        .module("LEDLanguage"),
        .module("CheckInFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "LEDLanguage"]),
        .module("NotificationsFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "UplinkClient", "Backoff"]),
        // The uplink's loops as reducers: one uploader per queue, heartbeats, the ping long poll,
        // the settings sync.
        .module("UploadFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "UplinkClient", "Backoff"]),
        .module("HeartbeatFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "UplinkClient"]),
        .module("PingListenerFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "UplinkClient", "Backoff"]),
        .module("SettingsSyncFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "UplinkClient"]),
        // The device's own healthchecks checks, kept in step with its settings.
        .module("HealthchecksSyncFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "UplinkClient", "Backoff"]),
        .module("StoreHealthFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock", "Backoff"]),
        .module("GPIOFeature", ["ComposableCore", "CheckInModels", "GPIOClient", "DeviceClock", "Backoff"]),
        // The mains power, the low battery and unexpected restarts as stored events.
        .module("PowerFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock"]),
        // The device on an MQTT broker: connection, Home Assistant discovery, state, events, commands.
        .module("MQTTFeature", ["ComposableCore", "CheckInModels", "DeviceClock", "CheckInStoreClient", "MQTTClient", "UploadFeature",
                                "UplinkClient", "LEDLanguage", "Backoff", "DeviceConfig"]),
        // A watcher's dependents: their statuses from MQTT peers, the backend or healthchecks; pings.
        .module("DependentsFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "DependentsClient", "DeviceClock",
                                      "MQTTClient", "UplinkClient", "JSONCoding"]),
        // The person's responders: watchers paired over MQTT, the backend's and healthchecks' people.
        .module("RespondersFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "RespondersClient", "DeviceClock",
                                      "MQTTClient", "UplinkClient"]),
        .module("DeviceFeature", ["ComposableCore", "CheckInModels", "CheckInFeature", "StoreHealthFeature", "GPIOFeature",
                                  "NotificationsFeature", "UploadFeature", "HeartbeatFeature", "PingListenerFeature",
                                  "SettingsSyncFeature", "CheckInStoreClient", "GPIOClient", "UplinkClient", "DeviceClock",
                                  "DeviceConfig", "LEDLanguage", "Backoff", "HealthchecksSyncFeature", "PowerFeature", "MQTTFeature",
                                  "MQTTClient", "DependentsFeature", "DependentsClient", "RespondersFeature", "RespondersClient"]),
        .module("ConfigFile"),
        // JSON for Codable types with the standard library only (no Foundation in the binaries).
        .module("JSONCoding"),
        .module("DeviceConfig", ["ConfigFile", "CheckInModels", "LEDLanguage"]),

        // MARK: Dependency client interfaces
        .module("GPIOClient", ["ComposableCore"]),
        .module("CheckInStoreClient", ["CheckInModels", "ComposableCore"]),
        .module("UplinkClient", ["CheckInModels", "ComposableCore"]),
        .module("MQTTClient", ["CheckInModels", "ComposableCore", "JSONCoding"]),
        // The polled sources of a watcher's dependents: the backend and healthchecks.
        .module("DependentsClient", ["CheckInModels", "ComposableCore", "UplinkClient"]),
        // The polled sources of the person's responders: the backend and healthchecks.
        .module("RespondersClient", ["CheckInModels", "UplinkClient"]),

        // MARK: Live implementations
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .module("SQLiteDatabase", ["CSQLite", "LinuxIO"]),
        // The store runs on a thread of its own (LinuxIO's SerialThreadExecutor).
        .module("CheckInStoreLive", ["CheckInStoreClient", "CheckInModels", "SQLiteDatabase", "LinuxIO"]),
        // Linux-only C declarations the Glibc module hides: eventfd, pthread_setname_np, adjtimex.
        .systemLibrary(name: "CLinuxSupport"),
        .module("DeviceClockLive", ["DeviceClock", "CheckInModels", "LinuxIO"]),
        .module("GPIOSimulated", ["GPIOClient"]),
        // SystemError (errno text), an eventfd wake-up and a dedicated pthread for poll loops.
        .module("LinuxIO", ["CLinuxSupport", "Backoff"]),
        .module("SimulatorTerminal", ["GPIOSimulated", "LinuxIO"]),
        // libgpiod 1.x or 2.x, whichever pkg-config finds; the shim hides the difference.
        .systemLibrary(
            name: "CGPIOD",
            pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        .module("GPIOLibgpiod", ["GPIOClient", "CGPIOD", "LinuxIO", log]),
        // The libgpiod backend alone, run inside the HIL guest (hil/run): see docs/hil.md.
        .executableTarget(
            name: "lifesignal-gpio-probe", dependencies: ["GPIOLibgpiod", "GPIOClient", log],
            path: "hil/probe", swiftSettings: strictSettings),
        // The daemon's architecture doing a press and nothing else: its latency floor, beside it in
        // the HIL guest (lifesignal-press-floor) and in the benchmark (lifesignal-bench).
        .module("PressFloorFeature", ["ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock", "GPIOClient"]),
        .executableTarget(
            name: "lifesignal-press-floor",
            dependencies: ["PressFloorFeature", "CheckInModels", "CheckInStoreClient", "CheckInStoreLive", "ComposableCore",
                           "DeviceClock", "DeviceClockLive", "GPIOClient", "GPIOLibgpiod", "SingleThreadExecutor", log],
            path: "hil/press-floor", swiftSettings: strictSettings + customExecutorSettings + noStringProcessing,
            linkerSettings: shippedExecutableLink + staticCxxRuntime),
        // The systemd notification protocol ($NOTIFY_SOCKET datagrams), without libsystemd.
        .module("SystemdNotify", ["LinuxIO"]),
        // One loop thread for every Swift job and timer, so an idle daemon does not wake (see
        // docs/architecture.md and BENCHMARKS.md). Uses Swift 6.3's experimental executor SPI.
        .systemLibrary(name: "CEventLoopSupport"),
        .target(name: "SingleThreadExecutor", dependencies: ["CEventLoopSupport", "LinuxIO"],
                swiftSettings: strictSettings + customExecutorSettings + noStringProcessing),
        // The device API's wire format (docs/device-api.yaml), shared by the device and the dev server.
        .module("DeviceAPI", ["CheckInModels", "JSONCoding"]),
        // curl.h only (libcurl4-openssl-dev): no pkgConfig, whose `--libs` would link libcurl.
        // UplinkLive's `LibCurl` dlopens it when the uplink is configured (BENCHMARKS.md: ~6.5 MiB).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .module("UplinkLive", ["UplinkClient", "DependentsClient", "RespondersClient", "DeviceAPI", "CheckInModels", "CCurl", "LinuxIO"]),
        // mosquitto.h only (libmosquitto-dev): no pkgConfig, whose `--libs` would link libmosquitto
        // and with it OpenSSL into every daemon. MQTTLive's `LibMosquitto` dlopens it for [mqtt].
        .systemLibrary(
            name: "CMosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .module("MQTTLive", ["MQTTClient", "CMosquitto", "LinuxIO", "DeviceConfig", "CheckInModels"]),
        // qrencode.h only (libqrencode-dev): lifesignalctl pair loads libqrencode with dlopen to draw
        // the pairing code's QR code; nothing else uses it, and the daemon never maps it.
        .systemLibrary(
            name: "CQRencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .module("TerminalQRCode", ["CQRencode", "LinuxIO"]),

        // MARK: Daemon plumbing and executables
        .module("LEDDriver", ["GPIOClient", "LEDLanguage"]),
        .module("DeviceLive", ["DeviceFeature", "DeviceConfig", "CheckInModels", "CheckInStoreClient", "CheckInStoreLive", "DeviceClock",
                               "DeviceClockLive", "GPIOClient", "GPIOSimulated", "GPIOLibgpiod", "UplinkClient", "UplinkLive",
                               "LinuxIO", log, "MQTTClient", "MQTTLive", "DependentsClient", "RespondersClient"]),
        .module("DeviceLogging", ["ComposableCore", log]),
        .module("DeviceControl", ["DeviceFeature", "CheckInFeature", "NotificationsFeature", "UploadFeature", "HeartbeatFeature",
                                  "HealthchecksSyncFeature", "MQTTFeature", "UplinkClient", "CheckInModels", "CheckInStoreClient",
                                  "ComposableCore", "ControlProtocol", "DeviceClock",
                                  "LEDDriver", "DependentsFeature", "RespondersFeature"]),
        .module("ControlProtocol", ["CheckInModels", "JSONCoding"]),
        .module("ControlSocket", ["LinuxIO", "CheckInModels"]),
        // The daemon's services started in order and shut down in reverse, on SIGTERM/SIGINT.
        .module("ServiceTree", ["LinuxIO", log]),
        .module("DeviceRuntime", [
            "ComposableCore", "DeviceFeature", "CheckInFeature", "DeviceConfig", "DeviceControl", "DeviceLive", "DeviceLogging",
            "ControlProtocol", "ControlSocket", "LEDDriver", "GPIOSimulated", "SimulatorTerminal", "SystemdNotify", log, "ServiceTree",
            "GPIOClient", "CheckInModels",
        ]),
        .module("OperatorCLI", ["ControlProtocol", "ControlSocket", "CheckInModels", "DeviceConfig", "LinuxIO",
                                 "SQLiteDatabase", "CLinuxSupport", "UplinkClient", "UplinkLive", "DeviceAPI",
                                 "HealthchecksSyncFeature", "LEDLanguage", "DeviceClock", "DeviceClockLive", "MQTTClient", "MQTTLive",
                                 "MQTTFeature", "TerminalQRCode", argumentParser]),
        .executableTarget(name: "lifesignald", dependencies: ["DeviceRuntime", "DeviceLive", "LinuxIO", "SingleThreadExecutor", "CheckInModels",
                                                            "DeviceClock", "DeviceClockLive"],
                          exclude: ["hot-functions.order", "link"],
                          swiftSettings: strictSettings + functionSections + customExecutorSettings + noStringProcessing,
                          linkerSettings: shippedExecutableLink + staticCxxRuntime + hotFunctionsFirst),
        .executableTarget(name: "lifesignalctl", dependencies: ["OperatorCLI"], swiftSettings: strictSettings + functionSections,
                          linkerSettings: shippedExecutableLink + staticCxxRuntime),
        // The floor lifesignald's memory and size are compared with (scripts/bench): a static Swift
        // program holding a SQLite store and nothing else, linked like the daemon.
        .executableTarget(name: "lifesignal-floor", dependencies: ["SQLiteDatabase"],
                          swiftSettings: strictSettings + functionSections + noStringProcessing,
                          linkerSettings: shippedExecutableLink + staticCxxRuntime),
        // scripts/bench: drives the release daemon and measures latency, memory, wake-ups, writes.
        .executableTarget(name: "lifesignal-bench", dependencies: [
            "DeviceRuntime", "DeviceLogging", "DeviceLive", "DeviceFeature", "DeviceConfig", "DeviceClock", "DeviceClockLive", "GPIOSimulated", "ControlSocket",
            "ControlProtocol", "LinuxIO", "SingleThreadExecutor",
            // The backlog phase: a 100,000-row queue written straight into a store.
            "CheckInStoreLive", "CheckInModels", "SQLiteDatabase",
            // The presses phase times the daemon's floor too.
            "PressFloorFeature", "ComposableCore", "CheckInStoreClient", "GPIOClient",
        ], swiftSettings: strictSettings + customExecutorSettings),
        // The reference backend for development and tests (127.0.0.1 only): see docs/uplink.md.
        .module("DevServer", ["DeviceAPI", "CheckInModels", "SQLiteDatabase", "LinuxIO"]),
        .executableTarget(name: "lifesignal-devserver", dependencies: ["DevServer", "LinuxIO", argumentParser],
                          swiftSettings: strictSettings),

        // MARK: Tests (one target per module, named after it; ArchitectureTests checks)
        .tests("ComposableCoreTests", ["ComposableCore", "TestSupport", clocks, concurrencyExtras]),
        .tests("BackoffTests", ["Backoff", "TestSupport"]),
        .tests("CheckInModelsTests", ["CheckInModels", "TestSupport"]),
        .tests("CheckInFeatureTests", ["CheckInFeature", "CheckInModels", "CheckInStoreClient", "DeviceClock", "TestSupport", clocks, concurrencyExtras,
                                       // Daily windows across daylight-saving changes on the system's tzdata.
                                       "DeviceClockLive"]),
        .tests("NotificationsFeatureTests", ["NotificationsFeature", "CheckInModels", "CheckInStoreClient", "DeviceClock", "UplinkClient", "TestSupport", clocks, concurrencyExtras]),
        .tests("UploadFeatureTests", ["UploadFeature", "ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock", "UplinkClient", "Backoff", "TestSupport", clocks, concurrencyExtras]),
        .tests("HeartbeatFeatureTests", ["HeartbeatFeature", "ComposableCore", "CheckInModels", "DeviceClock", "UplinkClient", "TestSupport", clocks, concurrencyExtras]),
        .tests("PingListenerFeatureTests", ["PingListenerFeature", "ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock", "UplinkClient", "Backoff", "TestSupport", clocks, concurrencyExtras]),
        .tests("HealthchecksSyncFeatureTests", ["HealthchecksSyncFeature", "ComposableCore", "CheckInModels", "DeviceClock", "UplinkClient", "Backoff", "TestSupport", concurrencyExtras]),
        .tests("SettingsSyncFeatureTests", ["SettingsSyncFeature", "ComposableCore", "CheckInModels", "CheckInStoreClient", "UplinkClient", "TestSupport", concurrencyExtras]),
        .tests("StoreHealthFeatureTests", ["StoreHealthFeature", "CheckInStoreClient", "CheckInModels", "DeviceClock", "TestSupport", clocks]),
        .tests("PressFloorFeatureTests", ["PressFloorFeature", "ComposableCore", "CheckInModels", "CheckInStoreClient", "DeviceClock",
                                          "GPIOClient", "TestSupport", clocks, concurrencyExtras]),
        .tests("GPIOFeatureTests", ["GPIOFeature", "GPIOClient", "DeviceClock", "TestSupport", clocks]),
        .tests("PowerFeatureTests", ["PowerFeature", "CheckInModels", "CheckInStoreClient", "DeviceClock", "TestSupport", clocks,
                                     concurrencyExtras]),
        .tests("MQTTFeatureTests", ["MQTTFeature", "MQTTClient", "UploadFeature", "UplinkClient", "CheckInModels", "CheckInStoreClient", "DeviceClock",
                                    "ComposableCore", "LEDLanguage", "TestSupport", clocks, concurrencyExtras]),
        .tests("DeviceFeatureTests", ["DeviceFeature", "CheckInFeature", "StoreHealthFeature", "GPIOFeature", "NotificationsFeature",
                                      "CheckInStoreClient", "CheckInModels", "GPIOClient", "DeviceClock", "DeviceConfig",
                                      "ComposableCore", "TestSupport", clocks, "PowerFeature", "MQTTFeature", "MQTTClient", "LEDLanguage"]),
        .tests("LEDLanguageTests", ["LEDLanguage"]),
        .tests("ConfigFileTests", ["ConfigFile"]),
        .tests("JSONCodingTests", ["JSONCoding", "TestSupport"]),
        .tests("DeviceConfigTests", ["DeviceConfig", "ConfigFile", "CheckInModels", "LEDLanguage", "TestSupport"]),
        .tests("DeviceClockTests", ["DeviceClock", "CheckInModels", "ComposableCore", "TestSupport", clocks]),
        .tests("GPIOClientTests", ["GPIOClient", "GPIOSimulated", "ComposableCore", "TestSupport"]),
        .tests("CheckInStoreClientTests", ["CheckInStoreClient", "CheckInModels", "ComposableCore", "TestSupport"]),
        .tests("UplinkClientTests", ["UplinkClient", "CheckInModels", "ComposableCore", "TestSupport"]),
        .tests("MQTTClientTests", ["MQTTClient", "CheckInModels", "ComposableCore", "TestSupport"]),
        .tests("DependentsFeatureTests", ["DependentsFeature", "DependentsClient", "CheckInModels", "CheckInStoreClient",
                                          "DeviceClock", "MQTTClient", "UplinkClient", "ComposableCore", "TestSupport"]),
        .tests("DependentsClientTests", ["DependentsClient", "CheckInModels", "TestSupport"]),
        .tests("RespondersFeatureTests", ["RespondersFeature", "RespondersClient", "CheckInModels", "CheckInStoreClient",
                                          "DeviceClock", "MQTTClient", "UplinkClient", "ComposableCore", "TestSupport"]),
        .tests("RespondersClientTests", ["RespondersClient", "CheckInModels", "TestSupport"]),
        .tests("DeviceClockLiveTests", ["DeviceClockLive", "DeviceClock", "CheckInModels", "LinuxIO"]),
        .tests("SQLiteDatabaseTests", ["SQLiteDatabase", "TestSupport"]),
        .tests("CheckInStoreLiveTests", ["CheckInStoreLive", "CheckInStoreClient", "CheckInModels", "SQLiteDatabase", "LinuxIO", "TestSupport"]),
        .tests("GPIOSimulatedTests", ["GPIOSimulated", "GPIOClient", "TestSupport"]),
        .tests("SimulatorTerminalTests", ["SimulatorTerminal", "GPIOSimulated", "GPIOClient", "LinuxIO", "TestSupport"]),
        .tests("GPIOLibgpiodTests", ["GPIOLibgpiod", "GPIOClient", "TestSupport", log]),
        .tests("LinuxIOTests", ["LinuxIO", "TestSupport"]),
        .tests("ServiceTreeTests", ["ServiceTree", "LinuxIO", "TestSupport", log]),
        .tests("SystemdNotifyTests", ["SystemdNotify", "TestSupport"]),
        .testTarget(name: "SingleThreadExecutorTests", dependencies: ["SingleThreadExecutor", "LinuxIO"],
                    swiftSettings: strictSettings + customExecutorSettings),
        .tests("DeviceAPITests", ["DeviceAPI", "CheckInModels", "TestSupport"]),
        .tests("UplinkLiveTests", ["UplinkLive", "UplinkClient", "DependentsClient", "DeviceAPI", "DevServer", "CheckInModels",
                                   "TestSupport"]),
        // libmosquitto against a real mosquitto on 127.0.0.1 (TestSupport's MosquittoBroker).
        .tests("MQTTLiveTests", ["MQTTLive", "MQTTClient", "LinuxIO", "TestSupport"]),
        .tests("TerminalQRCodeTests", ["TerminalQRCode", "LinuxIO"]),
        .tests("DevServerTests", ["DevServer", "DeviceAPI", "CheckInModels", "UplinkLive", "TestSupport"]),
        .tests("ControlProtocolTests", ["ControlProtocol", "CheckInModels", "TestSupport"]),
        .tests("ControlSocketTests", ["ControlSocket", "LinuxIO", "TestSupport"]),
        .tests("LEDDriverTests", ["LEDDriver", "LEDLanguage", "GPIOClient", "TestSupport"]),
        .tests("DeviceLoggingTests", ["DeviceLogging", "ComposableCore", log]),
        .tests("DeviceControlTests", ["DeviceControl", "DeviceFeature", "StoreHealthFeature", "CheckInModels", "CheckInStoreClient",
                                      "ComposableCore", "ControlProtocol", "DeviceClock", "DeviceConfig", "GPIOClient", "LEDDriver",
                                      "UploadFeature", "TestSupport", clocks]),
        .tests("DeviceLiveTests", ["DeviceLive", "DeviceConfig", "DeviceFeature", "TestSupport", log]),
        // The production graph in-process: live clients over a real store, the simulated board and
        // the reference backend on 127.0.0.1, or test clients.
        .tests("DeviceRuntimeTests", ["DeviceRuntime", "DeviceLive", "DeviceFeature", "DeviceConfig", "DeviceLogging", "DeviceClock",
                                      "DeviceClockLive", "CheckInModels", "CheckInStoreClient", "CheckInStoreLive", "ComposableCore",
                                      "ControlProtocol", "ControlSocket", "DevServer", "DeviceAPI", "GPIOClient", "GPIOSimulated",
                                      "LEDDriver", "LEDLanguage", "StoreHealthFeature", "UplinkClient", "UploadFeature", "TestSupport",
                                      clocks, log]),
        .tests("OperatorCLITests", ["OperatorCLI", "SQLiteDatabase", "DevServer", "ControlProtocol", "DeviceConfig", "UplinkLive",
                                    "TestSupport", "CheckInModels", "TerminalQRCode", "LinuxIO", argumentParser, "DeviceAPI"]),
        // The `lifesignald` and `lifesignalctl` executables, run as processes (the daemon's end-to-end tests).
        .tests("LifesignaldTests", ["ControlProtocol", "ControlSocket", "CheckInStoreLive", "CheckInStoreClient",
                                    "SQLiteDatabase", "DeviceAPI", "DevServer", "CheckInModels", "TestSupport"]),
        .tests("ArchitectureTests", []),
    ]
)
