import Foundation
import FolioStorage

/// `folio serve STORE... [--port N] [--host ADDRESS]`: a read-only local web view of stores.
enum ServeCommand: FolioSubcommand {
    static let spec = CommandSpec(
        name: "serve", abstract: "Show stores in a web browser: a read-only local web view with a JSON API.",
        discussion: """
            Serves pages for each store: its entities, counts, schema and recent transactions; an entity's records as a
            table (paged, sorted by any column, filtered with the --where syntax of 'folio cat', columns chosen, as CSV
            or JSON); each record with its relationships both ways, its history and its blame (the transaction, and in a
            git work tree the commit, that set each value); the transaction log; the conflicts merges resolved; in a
            git work tree, the commits that touched the store and the records changed between two of them. Every page
            has a JSON form: its address with .json added (see docs/cli.md).

            Each page reads the store as it is now: what another process writes shows on the next load. The server
            never writes; it listens on 127.0.0.1 unless --host says otherwise, and answers GET and HEAD only.
            Stop it with Ctrl-C.
            """,
        arguments: [.init(name: "STORE", help: "A store directory to serve (several may be given).", isVariadic: true)],
        options: [
            .option("--port", "-p", value: "N", help: "The port to listen on (default 8080; 0 picks a free one)."),
            .option("--host", value: "ADDRESS", help: "The address to listen on (default 127.0.0.1); others can then connect."),
        ],
        examples: ["folio serve Trips.folio", "folio serve Trips.folio Recipes.folio --port 0", "curl localhost:8080/Trips.folio/Trip.json"])

    static let defaultPort = 8080

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let port = try arguments.integer("--port", command: spec.name) ?? defaultPort
        guard port <= Int(UInt16.max) else {
            throw UsageError("The value '\(port)' is invalid for '--port <N>'.", help: "Give a port from 0 to 65535.", command: spec.name)
        }
        let host = arguments.value("--host") ?? "127.0.0.1"
        for path in arguments.positionals { _ = try StoreAccess.directory(path) }
        Socket.unblockTerminationSignals()
        let (server, stores) = try start(paths: arguments.positionals, host: host, port: UInt16(port))
        defer {
            server.stop()
            stores.closeAll()
        }
        if !isLoopback(host) {
            console.warning("listening on \(host): anyone who can reach this address can read the stores served.")
        }
        console.print("Serving \(stores.entries.count) store\(stores.entries.count == 1 ? "" : "s") at \(url(host: host, port: server.port))")
        console.print("Press Ctrl-C to stop.")
        console.flush()
        while true { Thread.sleep(forTimeInterval: 3600) }
    }

    /// Starts a server for the stores; the caller stops it and closes the stores.
    ///
    /// - Throws: ``CommandFailure`` when the address cannot be listened on.
    static func start(paths: [String], host: String, port: UInt16, limits: HTTPLimits = HTTPLimits()) throws -> (HTTPServer, ServedStores) {
        let stores = ServedStores(paths: paths)
        let address = host == "localhost" ? "127.0.0.1" : host
        let server: HTTPServer
        do {
            let site = ServeSite(stores: stores, loopbackOnly: isLoopback(host))
            server = try HTTPServer(host: address, port: port, limits: limits, handler: site)
        } catch let error as SocketError {
            throw CommandFailure(
                "Cannot listen on \(host) port \(port): \(error).",
                help: port == 0 ? "Check the address with --host." : "Choose another port with --port, or --port 0 for any free one.")
        }
        server.start()
        return (server, stores)
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    static func url(host: String, port: UInt16) -> String {
        let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        return shown.contains(":") ? "http://[\(shown)]:\(port)/" : "http://\(shown):\(port)/"
    }
}
