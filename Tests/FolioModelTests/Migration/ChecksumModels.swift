import Foundation
import Folio

// One entity, `Sample`, declared several ways: in one order, in another order, with a changed type,
// with an index only, and with a changed optionality, for the checksum tests.

enum ChecksumModelsA {
    @Model
    final class Sample {
        var name: String
        var count: Int
        var note: String?
        var parts: [ChecksumPart] = []

        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
}

enum ChecksumModelsReordered {
    @Model
    final class Sample {
        var parts: [ChecksumPart] = []
        var note: String?
        var count: Int
        var name: String

        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
}

enum ChecksumModelsRetyped {
    @Model
    final class Sample {
        var name: String
        var count: String
        var note: String?
        var parts: [ChecksumPart] = []

        init(name: String, count: String) {
            self.name = name
            self.count = count
        }
    }
}

enum ChecksumModelsIndexed {
    @Model
    final class Sample {
        #Index<Sample>([\.name])

        var name: String
        var count: Int
        var note: String?
        var parts: [ChecksumPart] = []

        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
}

enum ChecksumModelsRequired {
    @Model
    final class Sample {
        var name: String
        var count: Int
        var note: String = ""
        var parts: [ChecksumPart] = []

        init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }
}

@Model
final class ChecksumPart {
    var label: String

    init(label: String) {
        self.label = label
    }
}
