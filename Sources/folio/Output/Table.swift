/// An aligned text table: a header row, then rows; numbers right-aligned, long cells cut with "…".
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []
    /// Columns whose cells are right-aligned.
    var rightAligned: Set<Int> = []
    /// The longest a cell may be before it is cut.
    var maximumCellWidth = 40

    init(headers: [String]) {
        self.headers = headers
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The table as lines, fitted to `width` columns when given by narrowing the widest columns.
    func render(width: Int? = nil, headerStyle: (String) -> String = { $0 }) -> [String] {
        let count = headers.count
        var widths = (0..<count).map { column in
            min(maximumCellWidth, max(headers[column].count, rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0))
        }
        if let width {
            while widths.reduce(0, +) + 2 * max(0, count - 1) > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                widths[widest] > 6
            {
                widths[widest] -= 1
            }
        }
        func line(_ cells: [String], style: (String) -> String = { $0 }) -> String {
            var parts: [String] = []
            for column in 0..<count {
                var cell = column < cells.count ? cells[column] : ""
                if cell.count > widths[column] { cell = String(cell.prefix(max(0, widths[column] - 1))) + "…" }
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                let isLast = column == count - 1
                if rightAligned.contains(column) {
                    parts.append(padding + style(cell))
                } else {
                    parts.append(style(cell) + (isLast ? "" : padding))
                }
            }
            var text = parts.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return [line(headers, style: headerStyle)] + rows.map { line($0) }
    }
}
