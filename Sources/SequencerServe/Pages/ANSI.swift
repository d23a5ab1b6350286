/// A command's output with its ANSI colours as HTML: SGR sequences (`ESC [ … m`) become
/// spans with classes (`fg1`, `bg4`, `b`, `i`, `u`), other escape sequences are dropped, and
/// the text is escaped. Classes, not style attributes: the page's policy forbids those.
enum ANSI {
    struct Style: Equatable {
        var foreground: Int?
        var background: Int?
        var bold = false
        var italic = false
        var underline = false

        var classes: String {
            var names: [String] = []
            if let foreground { names.append("fg\(foreground)") }
            if let background { names.append("bg\(background)") }
            if bold { names.append("b") }
            if italic { names.append("i") }
            if underline { names.append("u") }
            return names.joined(separator: " ")
        }
    }

    static func html(_ text: String) -> String {
        var output = ""
        var style = Style()
        var open = false
        var scalars = Array(text.unicodeScalars)[...]
        var plain = ""

        func flush() {
            guard !plain.isEmpty else { return }
            output += HTML.escape(plain)
            plain = ""
        }
        func restyle(_ new: Style) {
            guard new != style else { return }
            flush()
            if open { output += "</span>" }
            style = new
            open = !style.classes.isEmpty
            if open { output += "<span class=\"\(style.classes)\">" }
        }

        while let scalar = scalars.popFirst() {
            guard scalar == "\u{1B}" else {
                plain.unicodeScalars.append(scalar)
                continue
            }
            guard let kind = scalars.first else { break }
            if kind == "[" {
                scalars.removeFirst()
                // Parameters and intermediates up to the final byte (@ to ~).
                var parameters = ""
                var final: Unicode.Scalar?
                while let next = scalars.popFirst() {
                    if (0x40...0x7E).contains(next.value) {
                        final = next
                        break
                    }
                    parameters.unicodeScalars.append(next)
                }
                if final == "m" { restyle(apply(parameters, to: style)) }
            } else if kind == "]" {
                // An operating system command (a title, a link): up to BEL or ESC \.
                scalars.removeFirst()
                while let next = scalars.popFirst() {
                    if next == "\u{07}" { break }
                    if next == "\u{1B}" {
                        if scalars.first == "\\" { scalars.removeFirst() }
                        break
                    }
                }
            } else {
                scalars.removeFirst()
            }
        }
        flush()
        if open { output += "</span>" }
        return output
    }

    static func apply(_ parameters: String, to style: Style) -> Style {
        var style = style
        var codes = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
        if codes.isEmpty { codes = [0] }
        while let code = codes.popFirst() {
            switch code {
            case 0: style = Style()
            case 1: style.bold = true
            case 3: style.italic = true
            case 4: style.underline = true
            case 22: style.bold = false
            case 23: style.italic = false
            case 24: style.underline = false
            case 30...37: style.foreground = code - 30
            case 39: style.foreground = nil
            case 40...47: style.background = code - 40
            case 49: style.background = nil
            case 90...97: style.foreground = code - 90 + 8
            case 100...107: style.background = code - 100 + 8
            case 38, 48:
                let colour: Int?
                switch codes.popFirst() {
                case 5: colour = codes.popFirst().map(nearest(ofIndexed:))
                case 2:
                    let rgb = [codes.popFirst() ?? 0, codes.popFirst() ?? 0, codes.popFirst() ?? 0]
                    colour = nearest(red: rgb[0], green: rgb[1], blue: rgb[2])
                default: colour = nil
                }
                if code == 38 { style.foreground = colour } else { style.background = colour }
            default: break
            }
        }
        return style
    }

    /// One of the 16 colours nearest a 256-colour index.
    static func nearest(ofIndexed index: Int) -> Int {
        switch index {
        case 0..<16: return index
        case 16..<232:
            let cube = index - 16
            let level = [0, 95, 135, 175, 215, 255]
            return nearest(red: level[cube / 36], green: level[cube / 6 % 6], blue: level[cube % 6])
        default:
            let grey = 8 + (min(index, 255) - 232) * 10
            return nearest(red: grey, green: grey, blue: grey)
        }
    }

    /// One of the 16 colours nearest a colour (the xterm palette).
    static func nearest(red: Int, green: Int, blue: Int) -> Int {
        let palette = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        var best = 0
        var bestDistance = Int.max
        for (index, colour) in palette.enumerated() {
            let distance = (colour.0 - red) * (colour.0 - red) + (colour.1 - green) * (colour.1 - green) + (colour.2 - blue) * (colour.2 - blue)
            if distance < bestDistance {
                best = index
                bestDistance = distance
            }
        }
        return best
    }
}
