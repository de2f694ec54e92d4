package io.tandem.core.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Utf8} against the JDK: the same bytes as {@code getBytes(UTF_8)}, the same verdicts as a strict decoder. */
class Utf8Test {

  /** What the wire used before: a UTF-8 decoder that reports malformed input; null when it refuses. */
  private static String strictJdkDecode(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static byte[] encode(String s) {
    byte[] out = new byte[Utf8.encodedLength(s)];
    Utf8.encode(s, out, 0);
    return out;
  }

  @Property(tries = 2000)
  void encode_anyString_isExactlyGetBytes(@ForAll("anyChars") String s) {
    assertThat(encode(s)).isEqualTo(s.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 5000)
  void decode_anyBytes_agreesWithTheStrictJdkDecoder(@ForAll("utf8ish") byte[] bytes) {
    assertThat(Utf8.decode(bytes, 0, bytes.length)).isEqualTo(strictJdkDecode(bytes));
  }

  @Property(tries = 1000)
  void decode_aRangeOfALargerArray_readsOnlyThatRange(@ForAll("anyChars") String s) {
    byte[] encoded = s.getBytes(StandardCharsets.UTF_8);
    byte[] padded = new byte[encoded.length + 4];
    padded[0] = (byte) 0xff; // invalid UTF-8 on both sides of the range
    padded[1] = (byte) 0xc0;
    System.arraycopy(encoded, 0, padded, 2, encoded.length);
    padded[padded.length - 2] = (byte) 0xe2;
    padded[padded.length - 1] = (byte) 0x80;

    assertThat(Utf8.decode(padded, 2, encoded.length)).isEqualTo(strictJdkDecode(encoded));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "c0af", // overlong '/'
        "c1bf", // overlong
        "e080af", // overlong 3-byte
        "f08080af", // overlong 4-byte
        "eda080", // encoded high surrogate U+D800
        "edbfbf", // encoded low surrogate U+DFFF
        "f4908080", // above U+10FFFF
        "f5808080", // lead byte beyond the range
        "ff",
        "80", // lone continuation
        "e282", // truncated
        "41e2", // truncated after ASCII
        "e228a1", // bad continuation
        "f09f98", // truncated 4-byte
      })
  void decode_malformed_isRefusedAsBefore(String hex) {
    byte[] bytes = HexFormat.of().parseHex(hex);

    assertThat(strictJdkDecode(bytes)).isNull();
    assertThat(Utf8.decode(bytes, 0, bytes.length)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "41", "c2a9", "e282ac", "efbfbd", "ed9fbf", "ee8080", "f0908080", "f48fbfbf", "00"})
  void decode_wellFormedEdges_areAccepted(String hex) {
    byte[] bytes = HexFormat.of().parseHex(hex);

    assertThat(Utf8.decode(bytes, 0, bytes.length)).isNotNull().isEqualTo(strictJdkDecode(bytes));
  }

  @Provide
  Arbitrary<String> anyChars() {
    // Every char, surrogates included, so lone and paired surrogates both occur.
    return Arbitraries.strings().all().ofMaxLength(40);
  }

  @Provide
  Arbitrary<byte[]> utf8ish() {
    // Bytes biased to the boundaries that matter: ASCII, continuations, and every lead byte class.
    Arbitrary<Byte> interesting =
        Arbitraries.of(
                0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
                0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff)
            .map(Integer::byteValue);
    Arbitrary<Byte> anyByte = Arbitraries.bytes();
    Arbitrary<Byte> mixed = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, interesting), net.jqwik.api.Tuple.of(1, anyByte));
    return mixed.array(byte[].class).ofMaxSize(12);
  }
}
