package io.tandem.tomcat;

import static org.assertj.core.api.Assertions.assertThat;

import io.tandem.core.session.Blob;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** A session's principal and notes are encoded when a flush finds other objects than last time, and only then. */
class EncodedLoginTest {
  private final List<Object> encoded = new ArrayList<>();
  private final EncodedLogin.Encoder encoder = new EncodedLogin.Encoder() {
    @Override
    public Blob principal(Principal principal) {
      encoded.add(principal);
      return principal == null ? null : blob(principal.getName());
    }

    @Override
    public Optional<Blob> note(Object note) {
      encoded.add(note);
      return note instanceof String text ? Optional.of(blob(text)) : Optional.empty();
    }
  };
  private final Map<String, Object> notes = new ConcurrentHashMap<>();

  private static Blob blob(String text) {
    return Blob.wrap(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void samePrincipalAndNotes_areNotEncodedAgain_andTheSameMapIsHandedOn() {
    Principal alice = () -> "alice";
    notes.put("id", "s1.n1");
    EncodedLogin first = EncodedLogin.NONE.refresh(alice, notes, encoder);
    encoded.clear();

    EncodedLogin second = first.refresh(alice, notes, encoder);

    assertThat(encoded).isEmpty();
    assertThat(second).isSameAs(first);
    assertThat(second.notes()).containsOnlyKeys("id");
  }

  @Test
  void aNoteReplacedByAnotherObject_isEncodedAlone_andARemovedOneIsDropped() {
    Principal alice = () -> "alice";
    notes.put("kept", "k");
    notes.put("changed", "before");
    notes.put("removed", "r");
    EncodedLogin first = EncodedLogin.NONE.refresh(alice, notes, encoder);
    encoded.clear();
    String after = new String("after".toCharArray());
    notes.put("changed", after);
    notes.remove("removed");

    EncodedLogin second = first.refresh(alice, notes, encoder);

    assertThat(encoded).containsExactly(after);
    assertThat(second.notes()).containsOnlyKeys("kept", "changed");
    assertThat(second.notes().get("kept")).isSameAs(first.notes().get("kept"));
    assertThat(second.principalBlob()).isSameAs(first.principalBlob());
  }

  @Test
  void loginAndLogout_encodeThePrincipalOnce_each() {
    Principal alice = () -> "alice";
    EncodedLogin anonymous = EncodedLogin.NONE.refresh(null, notes, encoder);
    assertThat(anonymous).isSameAs(EncodedLogin.NONE);

    EncodedLogin loggedIn = anonymous.refresh(alice, notes, encoder);
    EncodedLogin again = loggedIn.refresh(alice, notes, encoder);
    EncodedLogin loggedOut = again.refresh(null, notes, encoder);

    assertThat(encoded).containsExactly(alice, null);
    assertThat(again.principalBlob()).isEqualTo(blob("alice"));
    assertThat(loggedOut.principalBlob()).isNull();
  }

  @Test
  void aNoteThatIsNotReplicated_isTriedOnceWhileItStaysTheSameObject() {
    Object notSerializable = new Object();
    notes.put("opaque", notSerializable);
    EncodedLogin first = EncodedLogin.NONE.refresh(null, notes, encoder);
    notes.put("text", "t");

    EncodedLogin second = first.refresh(null, notes, encoder);

    assertThat(encoded).containsExactly(notSerializable, "t");
    assertThat(second.notes()).containsOnlyKeys("text");
  }
}
