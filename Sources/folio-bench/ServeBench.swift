import FolioStorage
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// S1: `folio serve` over a loaded store. Starts the given `folio` on the store, waits until it
/// answers, makes each column's sorted page once (the first sort of a column, reported as `cold`, and
/// one by two columns), then times each kind of page and finally runs concurrent clients. Latency is
/// measured by the client over loopback, so it includes the server's whole time for the request.
enum ServeBench {
    static func run(store: String, folio: String, entity: String, requests: Int, clients: Int, perClient: Int) {
        let port = UInt16(20_000 + Int(getpid()) % 20_000)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: folio)
        server.arguments = ["serve", store, "--port", String(port)]
        server.standardOutput = FileHandle.nullDevice
        do { try server.run() } catch {
            FileHandle.standardError.write(Data("cannot start \(folio): \(error)\n".utf8))
            exit(1)
        }
        defer { server.terminate() }
        let name = URL(fileURLWithPath: store).lastPathComponent
        let table = "/\(name)/\(entity)"
        let start = now()
        while get(port, table + "?size=1") != 200 {
            guard now() - start < 600, server.isRunning else {
                FileHandle.standardError.write(Data("folio serve did not answer\n".utf8))
                exit(1)
            }
            usleep(100_000)
        }
        row("load", ["seconds": now() - start])
        let count = total(port, table)
        // Each column's first sort, then a first sort by two columns, the first with many ties.
        let orders = ["-price", "-startDate", "-destination", "-name", "-tripID", "destination,-price"]
        for order in orders {
            let begin = now()
            _ = get(port, "\(table)?sort=\(order)&page=\(max(1, count / 50 / 2))")
            row("cold-sort", ["column": order, "ms": (now() - begin) * 1000])
        }
        // A first filtered page in an order not made yet: the filters over every record, then a selection.
        for query in ["where=startDate%20%3E%202022-01-01&sort=tripID", "where=price%20%3E%200&sort=-name", "where=name%20contains%20ab&sort=price"] {
            let begin = now()
            _ = get(port, "\(table)?\(query)&page=20")
            row("cold-filtered", ["query": query, "ms": (now() - begin) * 1000])
        }
        let pages = max(1, count / 50)
        let kinds: [(String, @Sendable (inout SystemRandomNumberGenerator) -> String)] = [
            ("table", { random in "\(table)?page=\(Int.random(in: 1...pages, using: &random))" }),
            (
                "sorted-deep",
                { random in
                    "\(table)?sort=\(["price", "-startDate", "destination", "-name"].randomElement(using: &random) ?? "price")&page=\(Int.random(in: pages / 2...pages, using: &random))"
                }
            ),
            (
                "filtered",
                { random in "\(table)?where=price%20%3C%20\(Int.random(in: 50...500, using: &random))&page=\(Int.random(in: 1...20, using: &random))"
                }
            ),
            (
                "filtered-sorted",
                { random in
                    "\(table)?where=price%20%3E%20\(Int.random(in: 50...500, using: &random))&sort=\(["name", "-startDate", "tripID"].randomElement(using: &random) ?? "name")&page=\(Int.random(in: 1...20, using: &random))"
                }
            ),
            ("record", { random in "\(table)/\(Int.random(in: 1...max(1, count), using: &random))" }),
            ("store", { _ in "/\(name)" }),
        ]
        for (kind, path) in kinds {
            var latencies: [Double] = []
            var errors = 0
            var random = SystemRandomNumberGenerator()
            for _ in 0..<requests {
                let begin = now()
                if get(port, path(&random)) != 200 { errors += 1 }
                latencies.append((now() - begin) * 1000)
            }
            latencies.sort()
            row(
                "page",
                [
                    "kind": kind, "median_ms": latencies[latencies.count / 2],
                    "p99_ms": latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
                    "errors": Double(errors),
                ])
        }
        let loadedRSS = statusKiB(server.processIdentifier, "VmRSS")
        let errors = LockedState(0)
        let begin = now()
        DispatchQueue.concurrentPerform(iterations: clients) { client in
            var random = SystemRandomNumberGenerator()
            for _ in 0..<perClient {
                let (_, path) = kinds[Int.random(in: 0..<kinds.count, using: &random)]
                if get(port, path(&random)) != 200 { errors.withLock { $0 += 1 } }
            }
            _ = client
        }
        row(
            "concurrent",
            [
                "clients": Double(clients), "requests": Double(clients * perClient), "errors": Double(errors.withLock { $0 }),
                "seconds": now() - begin, "loaded_rss_mib": Double(loadedRSS) / 1024,
                "rss_mib": Double(statusKiB(server.processIdentifier, "VmRSS")) / 1024,
                "peak_rss_mib": Double(statusKiB(server.processIdentifier, "VmHWM")) / 1024,
            ])
    }

    static func row(_ step: String, _ values: [String: Any]) {
        let fields = values.sorted { $0.key < $1.key }.map { key, value in
            if let number = value as? Double { return "\"\(key)\":\(cformat("%.3f", number))" }
            return "\"\(key)\":\"\(value)\""
        }
        print("{\"workload\":\"S1\",\"step\":\"\(step)\",\"peer\":\"folio\"," + fields.joined(separator: ",") + "}")
    }

    /// The table's `total`, from its JSON form.
    static func total(_ port: UInt16, _ table: String) -> Int {
        guard let (_, body) = request(port, table + ".json?size=1"),
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let total = object["total"] as? Int
        else { return 0 }
        return total
    }

    static func get(_ port: UInt16, _ path: String) -> Int { request(port, path)?.status ?? 0 }

    /// One GET over a new loopback connection; the status and body, or nil when the exchange failed.
    static func request(_ port: UInt16, _ path: String) -> (status: Int, body: [UInt8])? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        let text = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard text.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == text.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        guard response.count > 12, let status = Int(String(decoding: response[9..<12], as: UTF8.self)) else { return nil }
        let headerEnd = (0..<max(0, response.count - 3)).first {
            response[$0] == 13 && response[$0 + 1] == 10 && response[$0 + 2] == 13 && response[$0 + 3] == 10
        }
        return (status, headerEnd.map { Array(response[($0 + 4)...]) } ?? [])
    }

    /// A value of another process's `/proc/PID/status`, in KiB.
    static func statusKiB(_ pid: Int32, _ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).filter(\.isNumber)) ?? -1
        }
        return -1
    }
}
