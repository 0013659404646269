import FolioStorage

/// Links to a transaction's row on the log page that shows it (newest first, 50 a page).
struct LogLinks {
    let context: PageContext
    private let sequences: [UInt64]
    static let pageSize = 50

    init(context: PageContext) {
        self.context = context
        sequences = ((try? context.views.history().transactions) ?? []).map(\.sequence)
    }

    func link(_ sequence: UInt64) -> String {
        let route = ServeRoute.log(store: context.storeName)
        // The retained transactions are in ascending sequence order.
        var low = 0, high = sequences.count
        while low < high {
            let middle = (low + high) / 2
            if sequences[middle] < sequence { low = middle + 1 } else { high = middle }
        }
        guard low < sequences.count, sequences[low] == sequence else { return String(sequence) }
        let page = (sequences.count - 1 - low) / Self.pageSize + 1
        let path = route.path + "?" + PercentEncoding.query([("page", String(page)), ("size", String(Self.pageSize))]) + "#t\(sequence)"
        return PageLayout.link(path, String(sequence))
    }
}
