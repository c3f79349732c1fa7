package io.adreport.schema.cube;

import java.util.Objects;

/**
 * The text a cube was read from, exactly as written (YAML or JSON), and what it is called in
 * error messages. A cube that must cross a process boundary — to the tasks of the nightly
 * MapReduce job — travels as this text and is read again by {@link CubeLoader}, so there is one
 * serialized form of a cube (its file format) and one parser, which validates it on both sides.
 *
 * @param name what the text is called in error messages (a file name, "ads.yaml (built in)")
 * @param text the cube file's text
 */
public record CubeSource(String name, String text) {

    public CubeSource {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(text, "text");
    }

    /** The cube this text describes, validated. */
    public Cube parse() {
        return CubeLoader.parse(name, text);
    }

    /** The name and size only: the text can be long. */
    @Override
    public String toString() {
        return name + " (" + text.length() + " characters)";
    }
}
