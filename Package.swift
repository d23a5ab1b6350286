// swift-tools-version: 6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Sequencer",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Sequencer", targets: ["Sequencer"]),
        .library(name: "SequencerTestSupport", targets: ["SequencerTestSupport"]),
        .executable(name: "sequencer-bench", targets: ["sequencer-bench"]),
        .executable(name: "startup-example", targets: ["StartupExample"]),
        .executable(name: "notification-example", targets: ["NotificationExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "Sequencer",
            dependencies: [.product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        .target(name: "SequencerTestSupport", dependencies: ["Sequencer"], swiftSettings: strict),
        .executableTarget(
            name: "sequencer-bench",
            dependencies: ["Sequencer"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "StartupExample",
            dependencies: ["Sequencer"],
            path: "Examples/Startup",
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
            dependencies: ["Sequencer", "SequencerTestSupport"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
