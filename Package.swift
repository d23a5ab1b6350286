// swift-tools-version: 6.1
import PackageDescription

// CI sets SEQUENCER_WARNINGS_AS_ERRORS for every step, so that its build (warnings are errors)
// and the README's `swift test` compile with the same flags: `-Xswiftc -warnings-as-errors` given
// to the build alone made `swift test` compile everything again, three and a half minutes of CI.
// Only this package's targets get it; a package that depends on Sequencer never does.
let warningsAsErrors: [SwiftSetting] =
    Context.environment["SEQUENCER_WARNINGS_AS_ERRORS"] == nil ? [] : [.unsafeFlags(["-warnings-as-errors"])]

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
] + warningsAsErrors

let package = Package(
    name: "Sequencer",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Sequencer", targets: ["Sequencer"]),
        .library(name: "SequencerTestSupport", targets: ["SequencerTestSupport"]),
        .library(name: "SequencerProcess", targets: ["SequencerProcess"]),
        .library(name: "SequencerOutput", targets: ["SequencerOutput"]),
        .library(name: "SequencerWorkflowFile", targets: ["SequencerWorkflowFile"]),
        .library(name: "SequencerJournal", targets: ["SequencerJournal"]),
        .library(name: "SequencerBuild", targets: ["SequencerBuild"]),
        .library(name: "SequencerQueue", targets: ["SequencerQueue"]),
        .library(name: "SequencerQueueSQLite", targets: ["SequencerQueueSQLite"]),
        .library(name: "SequencerHistory", targets: ["SequencerHistory"]),
        .library(name: "SequencerPostgres", targets: ["SequencerPostgres"]),
        .library(name: "SequencerNinja", targets: ["SequencerNinja"]),
        .library(name: "SequencerCache", targets: ["SequencerCache"]),
        .library(name: "SequencerCacheHTTP", targets: ["SequencerCacheHTTP"]),
        .library(name: "SequencerMetrics", targets: ["SequencerMetrics"]),
        .library(name: "SequencerTracing", targets: ["SequencerTracing"]),
        .executable(name: "sequencer", targets: ["SequencerCommand"]),
        .executable(name: "sequencer-serve", targets: ["SequencerServeCommand"]),
        .executable(name: "sequencer-otel", targets: ["SequencerOTelCommand"]),
        .executable(name: "sequencer-bench", targets: ["sequencer-bench"]),
        .executable(name: "startup-example", targets: ["StartupExample"]),
        .executable(name: "notification-example", targets: ["NotificationExample"]),
        .executable(name: "sync-queue-example", targets: ["SyncQueueExample"]),
        .executable(name: "offline-commands-example", targets: ["OfflineCommandsExample"]),
        .executable(name: "queue-server-example", targets: ["QueueServerExample"]),
        // The durable queue's crash and fault tests start these; built with the tests.
        .executable(name: "queue-crash-worker", targets: ["QueueCrashWorker"]),
        .executable(name: "queue-peer", targets: ["QueuePeer"]),
    ],
    // `OpenTelemetry` (on by default) builds `sequencer-otel` with swift-otel; without it
    // (`--disable-default-traits`, as CI's sanitized pass builds), that binary only says so.
    traits: [.default(enabledTraits: ["OpenTelemetry"]), .trait(name: "OpenTelemetry", description: "sequencer-otel exports traces over OTLP")],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Only `sequencer-serve` builds it; no traits: swift-configuration is not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // OTLP over HTTP only: its gRPC exporter would add minutes to every first build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        .target(
            name: "Sequencer",
            dependencies: [
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        .target(name: "SequencerProcess", dependencies: ["Sequencer", "CSequencerSpawn"], swiftSettings: strict),
        // fork and exec with a supervisor that ends a command with its parent (Linux).
        .target(name: "CSequencerSpawn"),
        .target(name: "SequencerOutput", dependencies: ["Sequencer"], swiftSettings: strict),
        .target(
            name: "SequencerWorkflowFile",
            dependencies: ["Sequencer", "SequencerProcess", "SequencerOutput", .product(name: "Yams", package: "Yams")],
            swiftSettings: strict
        ),
        // What the journal and the durable queue share about their SQLite files.
        .target(name: "SequencerSQLite", dependencies: [.product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strict),
        .target(
            name: "SequencerJournal",
            dependencies: [
                "Sequencer",
                "SequencerHistory",
                "SequencerSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SequencerQueue",
            dependencies: [
                "Sequencer", "SequencerHistory", "SequencerTracing", .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        // The durable queue's embedded driver: an SQLite file (GRDB). It brings the queue's
        // interface with it: one import.
        .target(
            name: "SequencerQueueSQLite",
            dependencies: ["SequencerQueue", "Sequencer", "SequencerHistory", "SequencerSQLite", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strict
        ),
        .target(
            name: "SequencerPostgres",
            dependencies: [
                "SequencerQueue",
                "SequencerCache",
                "SequencerHistory",
                "Sequencer",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // One model of a run, read from the journal or a queue (SQLite or PostgreSQL) alike.
        .target(name: "SequencerHistory", dependencies: ["Sequencer"], swiftSettings: strict),
        // The runner of workflow files, here or through a queue; where runs are kept, from a path or a URL.
        .target(
            name: "SequencerRunner",
            dependencies: [
                "Sequencer", "SequencerProcess", "SequencerOutput", "SequencerWorkflowFile", "SequencerBuild", "SequencerQueueSQLite",
                "SequencerHistory", "SequencerJournal", "SequencerQueue", "SequencerPostgres", "SequencerCache", "SequencerCacheHTTP",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "SequencerBuild",
            dependencies: ["Sequencer", "SequencerHistory", "SequencerWorkflowFile", "SequencerJournal", "SequencerCache"],
            swiftSettings: strict
        ),
        // The ninja manifest language, its semantics and tools (`sequencer ninja`).
        .target(
            name: "SequencerNinja",
            dependencies: ["Sequencer", "SequencerProcess", "SequencerHistory", "SequencerJournal", "SequencerCache", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        // The command line's commands, a library so that `sequencer` and `sequencer-otel` share them.
        .target(
            name: "SequencerCommandLine",
            dependencies: [
                "SequencerQueueSQLite",
                "Sequencer",
                "SequencerHistory",
                "SequencerRunner",
                "SequencerProcess",
                "SequencerOutput",
                "SequencerWorkflowFile",
                "SequencerCache",
                "SequencerJournal",
                "SequencerBuild",
                "SequencerQueue",
                "SequencerPostgres",
                "SequencerNinja",
                "SequencerMetrics",
                "SequencerTracing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // `sequencer` itself: its main calls SequencerCommandLine.
        .executableTarget(name: "SequencerCommand", dependencies: ["SequencerCommandLine"], swiftSettings: strict),
        // `sequencer-otel`: the same commands, with swift-otel bootstrapped, so that `--otel`
        // exports their spans (`sequencer run --otel` starts it); a binary of its own, as
        // swift-otel adds minutes to a first build.
        .executableTarget(
            name: "SequencerOTelCommand",
            dependencies: [
                "SequencerCommandLine",
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The local web page (`sequencer serve`), in a binary of its own: `sequencer` itself
        // does not link Hummingbird, and `sequencer serve` starts `sequencer-serve`.
        .target(
            name: "SequencerServe",
            dependencies: [
                "Sequencer",
                "SequencerCache",
                "SequencerHistory",
                "SequencerJournal",
                "SequencerWorkflowFile",
                "SequencerBuild",
                "SequencerOutput",
                "SequencerProcess",
                "SequencerQueue",
                "SequencerPostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The page's script and style, compiled into the binary: nothing to install beside it.
            resources: [.embedInCode("Assets/app.js"), .embedInCode("Assets/style.css")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "SequencerServeCommand",
            dependencies: ["SequencerServe", "SequencerRunner", "Sequencer", "SequencerCache", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        // The shared output cache: keys, the action cache and the content-addressed store.
        .target(name: "SequencerCache", dependencies: ["Sequencer", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: strict),
        // A Bazel HTTP cache (bazel-remote, BuildBuddy, `sequencer cache serve`) as a cache backend.
        .target(
            name: "SequencerCacheHTTP",
            dependencies: [
                "SequencerCache",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strict),
        // Metrics for those who run Sequencer: swift-prometheus's registry, served over HTTP.
        .target(
            name: "SequencerMetrics",
            dependencies: [
                "Sequencer",
                .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // A run as spans, through swift-distributed-tracing (`RunTraces`): no exporter here.
        .target(
            name: "SequencerTracing",
            dependencies: ["Sequencer", .product(name: "Tracing", package: "swift-distributed-tracing")],
            swiftSettings: strict),
        // What users need to test code that runs workflows: a manual clock and a gate.
        .target(name: "SequencerTestSupport", dependencies: ["Sequencer"], swiftSettings: strict),
        // What this package's own tests and test processes share; not a product.
        .target(name: "SequencerTestHelpers", dependencies: ["Sequencer", "SequencerProcess"], path: "Tests/SequencerTestHelpers", swiftSettings: strict),
        .executableTarget(
            name: "sequencer-bench",
            dependencies: ["SequencerQueueSQLite", "Sequencer", "SequencerJournal", "SequencerQueue"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "StartupExample",
            dependencies: ["Sequencer"],
            path: "Examples/Startup",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "SyncQueueExample",
            dependencies: ["Sequencer"],
            path: "Examples/SyncQueue",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "OfflineCommandsExample",
            dependencies: ["SequencerQueueSQLite", "SequencerQueue", "Sequencer"],
            path: "Examples/OfflineCommands",
            swiftSettings: strict
        ),
        // A Hummingbird server enqueueing to PostgreSQL, with a QueueWorker in its ServiceGroup.
        .executableTarget(
            name: "QueueServerExample",
            dependencies: [
                "SequencerQueue", "SequencerPostgres", "Sequencer", "SequencerMetrics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/QueueServer",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "QueuePeer",
            dependencies: [
                "SequencerQueueSQLite", "SequencerQueue", "SequencerPostgres", "Sequencer",
                .product(name: "Prometheus", package: "swift-prometheus"), .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "QueueCrashWorker",
            dependencies: ["SequencerQueueSQLite", "SequencerQueue", "SequencerPostgres", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "NotificationExample",
            dependencies: ["Sequencer"],
            path: "Examples/Notification",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerTests",
            dependencies: ["Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerWorkflowFileTests",
            dependencies: ["SequencerWorkflowFile", "SequencerProcess", "SequencerOutput", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerProcessTests",
            dependencies: ["SequencerProcess", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerOutputTests",
            dependencies: ["SequencerOutput", "Sequencer", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerJournalTests",
            dependencies: ["SequencerJournal", "SequencerHistory", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerCacheTests",
            dependencies: ["SequencerCache", "SequencerCacheHTTP", "SequencerPostgres", "SequencerServe", "SequencerTestHelpers", "PostgresTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "SequencerMetricsTests",
            dependencies: [
                "SequencerMetrics", "SequencerTracing", "Sequencer", "SequencerTestHelpers", "SequencerTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerQueueTests",
            dependencies: [
                "SequencerQueueSQLite", "SequencerQueue", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers",
                "SequencerTracing",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerPostgresTests",
            dependencies: [
                "SequencerQueueSQLite",
                "SequencerPostgres",
                "SequencerHistory",
                "PostgresTestSupport",
                "SequencerQueue",
                "Sequencer",
                "SequencerTestSupport", "SequencerTestHelpers",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerHistoryTests",
            dependencies: ["SequencerQueueSQLite", "SequencerHistory", "SequencerJournal", "SequencerQueue", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerNinjaTests",
            dependencies: ["SequencerNinja", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerBuildTests",
            dependencies: ["SequencerBuild", "SequencerCache", "SequencerHistory", "SequencerWorkflowFile", "SequencerJournal", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerCommandTests",
            dependencies: ["SequencerCommand", "SequencerJournal", "SequencerTestSupport", "SequencerTestHelpers", "PostgresTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerRunnerTests",
            dependencies: [
                "SequencerRunner", "SequencerHistory", "SequencerJournal", "SequencerQueue", "SequencerWorkflowFile", "SequencerProcess",
                "SequencerBuild", "SequencerCache", "Sequencer", "SequencerTestSupport", "SequencerTestHelpers", "PostgresTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SequencerServeTests",
            dependencies: [
                "SequencerQueueSQLite",
                "SequencerServe", "SequencerServeCommand", "SequencerCommand", "SequencerHistory", "SequencerJournal", "Sequencer",
                "SequencerTestSupport", "SequencerTestHelpers",
                "SequencerQueue", "SequencerPostgres", "PostgresTestSupport",
            ],
            swiftSettings: strict
        ),
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "SequencerPostgres", "SequencerTestHelpers",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/PostgresTestSupport",
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
