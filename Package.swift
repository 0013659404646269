// swift-tools-version: 6.0
//
// Folio: SwiftData's programming model with the data kept in plain files.
// No package dependencies: only the Swift toolchain.

import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Folio",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Folio", targets: ["Folio"]),
        .library(name: "FolioStorage", targets: ["FolioStorage"]),
        // `import SwiftData` on platforms without Apple's framework: re-exports Folio.
        .library(name: "SwiftData", targets: ["SwiftData"]),
        // Lets `#Predicate` call another predicate's `evaluate(_:)` on Linux; a client target lists it in `plugins:`.
        .plugin(name: "FolioPredicates", targets: ["FolioPredicates"]),
        .executable(name: "folio", targets: ["folio"]),
    ],
    targets: [
        // The storage engine: JSON values, journal, snapshots, recovery, locking, the platform seam.
        // Works on records (entity, identifier, values) and knows nothing of models or macros.
        .target(name: "FolioStorage"),

        // For tests only: a file system that fails chosen calls (fault injection); not in any product.
        .target(name: "FolioTestSupport", dependencies: ["FolioStorage"]),

        // A tiny executable the storage tests start and kill (SIGKILL crash tests, multi-process writers).
        .executableTarget(name: "folio-storage-worker", dependencies: ["FolioStorage"]),

        // The macro logic as an ordinary library, so that tests can link it: a small Swift lexer,
        // a declaration parser, the expansions and their diagnostics. Depends on nothing.
        .target(name: "FolioMacroKit"),

        // The compiler plugin: speaks the plugin wire protocol on stdin/stdout and calls FolioMacroKit.
        .macro(name: "FolioMacros", dependencies: ["FolioMacroKit"]),

        // What users import: the macros, models, schema, containers, contexts and queries.
        .target(name: "Folio", dependencies: ["FolioStorage", "FolioMacros"]),

        // A module named SwiftData that re-exports Folio, for code written against Apple's framework.
        .target(name: "SwiftData", dependencies: ["Folio"]),

        // Writes Folio's `#Predicate` declaration into a client target (it must depend on Folio).
        .plugin(name: "FolioPredicates", capability: .buildTool()),

        // The command-line tool: a demo, and offline inspection of any store.
        .executableTarget(name: "folio", dependencies: ["Folio", "FolioStorage"]),

        // A second process for the multi-process tests of the model layer.
        .executableTarget(name: "folio-model-worker", dependencies: ["Folio", "FolioStorage"]),
        .executableTarget(name: "folio-bench", dependencies: ["Folio", "FolioStorage"]),

        .testTarget(name: "FolioMacroKitTests", dependencies: ["FolioMacroKit"]),
        .testTarget(name: "FolioModelTests", dependencies: ["Folio", "folio-model-worker", "folio", "FolioTestSupport"]),
        // SwiftData source as apps write it: `import SwiftData`, nested predicates through the plugin.
        .testTarget(
            name: "FolioCompatibilityTests", dependencies: ["Folio", "SwiftData"],
            plugins: [.plugin(name: "FolioPredicates")]),
        .testTarget(name: "FolioStorageTests", dependencies: ["FolioStorage", "folio-storage-worker", "FolioTestSupport"]),
        .testTarget(name: "FolioCLITests", dependencies: ["folio", "folio-bench", "FolioStorage"]),
        // Small apps in the shapes real SwiftData code uses, each writing a store, reopening it and
        // checking its fetches.
        .testTarget(
            name: "SampleAppTests", dependencies: ["Folio", "SwiftData", "FolioStorage"],
            plugins: [.plugin(name: "FolioPredicates")]),
    ]
)
