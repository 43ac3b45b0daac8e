/* The JSON writer: escaping (control characters, quotes, backslashes,
 * UTF-8 kept, invalid bytes replaced), numbers that read back exactly and
 * null for what JSON cannot hold, layout, and misuse reported. */
#include "helpers.h"

#include <errno.h>
#include <math.h>

#include "report/json.h"

static char *quoted(const char *s)
{
	static char buf[512];
	memset(buf, 0, sizeof(buf));
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	mmp_json_quote(f, s);
	fclose(f);
	return buf;
}

static void test_escaping(void **state)
{
	(void)state;
	assert_string_equal(quoted("plain"), "\"plain\"");
	assert_string_equal(quoted(""), "\"\"");
	assert_string_equal(quoted("say \"hi\" \\ there"), "\"say \\\"hi\\\" \\\\ there\"");
	assert_string_equal(quoted("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
	assert_string_equal(quoted("\x01\x1f\x7f"), "\"\\u0001\\u001f\x7f\"");
	/* UTF-8 passes through: 2, 3 and 4 byte forms. */
	assert_string_equal(quoted("Ünïcode € 𝄞"), "\"Ünïcode € 𝄞\"");
	/* Not UTF-8: each bad byte is U+FFFD, what follows is kept. */
	assert_string_equal(quoted("a\xff" "b"), "\"a\\ufffdb\"");
	assert_string_equal(quoted("\xc0\xaf"), "\"\\ufffd\\ufffd\"");          /* overlong '/' */
	assert_string_equal(quoted("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* a surrogate */
	assert_string_equal(quoted("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(quoted("cut \xe2\x82"), "\"cut \\ufffd\\ufffd\"");
	assert_string_equal(quoted("Latin-1 caf\xe9!"), "\"Latin-1 caf\\ufffd!\"");
}

static char *doc(void (*build)(struct mmp_json *), int *rc)
{
	static char buf[2048];
	struct mmp_json j;
	memset(buf, 0, sizeof(buf));
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");
	mmp_json_init(&j, f);
	build(&j);
	*rc = mmp_json_finish(&j);
	fclose(f);
	return buf;
}

static void numbers(struct mmp_json *j)
{
	mmp_json_open_array(j, NULL);
	mmp_json_put_number(j, NULL, 0.1);
	mmp_json_put_number(j, NULL, 1.0 / 3);
	mmp_json_put_number(j, NULL, 1303636);
	mmp_json_put_number(j, NULL, 1e300);
	mmp_json_put_number(j, NULL, -0.5);
	mmp_json_put_number(j, NULL, NAN);
	mmp_json_put_number(j, NULL, INFINITY);
	mmp_json_put_uint(j, NULL, UINT64_MAX);
	mmp_json_close_array(j);
}

static void test_numbers(void **state)
{
	int rc;
	(void)state;
	char *text = doc(numbers, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text, "[\n  0.1,\n  0.3333333333333333,\n  1303636,\n  1e+300,\n"
				  "  -0.5,\n  null,\n  null,\n  18446744073709551615\n]\n");
	assert_true(strtod("0.3333333333333333", NULL) == 1.0 / 3);
}

static void nested(struct mmp_json *j)
{
	mmp_json_open_object(j, NULL);
	mmp_json_put_uint(j, "schema_version", 1);
	mmp_json_put_string(j, "name", "x");
	mmp_json_put_string(j, "none", NULL);
	mmp_json_put_bool(j, "ok", 1);
	mmp_json_put_null(j, "nothing");
	mmp_json_open_array(j, "empty");
	mmp_json_close_array(j);
	mmp_json_open_object(j, "inner");
	mmp_json_close_object(j);
	mmp_json_open_line(j, "pus");
	mmp_json_put_uint(j, NULL, 0);
	mmp_json_put_uint(j, NULL, 1);
	mmp_json_close_array(j);
	mmp_json_open_line(j, "none");
	mmp_json_close_array(j);
	mmp_json_open_array(j, "list");
	mmp_json_open_object(j, NULL);
	mmp_json_put_bool(j, "a", 0);
	mmp_json_close_object(j);
	mmp_json_close_array(j);
	mmp_json_close_object(j);
}

static void test_layout(void **state)
{
	int rc;
	(void)state;
	char *text = doc(nested, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(text, "{\n"
				  "  \"schema_version\": 1,\n"
				  "  \"name\": \"x\",\n"
				  "  \"none\": null,\n"
				  "  \"ok\": true,\n"
				  "  \"nothing\": null,\n"
				  "  \"empty\": [],\n"
				  "  \"inner\": {},\n"
				  "  \"pus\": [0, 1],\n"
				  "  \"none\": [],\n"
				  "  \"list\": [\n"
				  "    {\n"
				  "      \"a\": false\n"
				  "    }\n"
				  "  ]\n"
				  "}\n");
}

static void key_in_array(struct mmp_json *j)
{
	mmp_json_open_array(j, NULL);
	mmp_json_put_uint(j, "k", 1);
	mmp_json_close_array(j);
}

static void no_key_in_object(struct mmp_json *j)
{
	mmp_json_open_object(j, NULL);
	mmp_json_put_uint(j, NULL, 1);
	mmp_json_close_object(j);
}

static void unbalanced(struct mmp_json *j)
{
	mmp_json_open_object(j, NULL);
	mmp_json_open_array(j, "a");
	mmp_json_close_object(j);
}

static void too_deep(struct mmp_json *j)
{
	for (int i = 0; i <= MMP_JSON_MAX_DEPTH; i++)
		mmp_json_open_array(j, NULL);
	for (int i = 0; i <= MMP_JSON_MAX_DEPTH; i++)
		mmp_json_close_array(j);
}

static void object_in_line(struct mmp_json *j)
{
	mmp_json_open_line(j, NULL);
	mmp_json_open_object(j, NULL);
	mmp_json_close_object(j);
	mmp_json_close_array(j);
}

static void nothing(struct mmp_json *j)
{
	(void)j;
}

static void test_misuse(void **state)
{
	int rc;
	(void)state;
	doc(key_in_array, &rc);
	assert_int_equal(rc, -EINVAL);
	doc(no_key_in_object, &rc);
	assert_int_equal(rc, -EINVAL);
	doc(unbalanced, &rc);
	assert_int_equal(rc, -EINVAL);
	doc(too_deep, &rc);
	assert_int_equal(rc, -EINVAL);
	doc(object_in_line, &rc);
	assert_int_equal(rc, -EINVAL);
	doc(nothing, &rc);
	assert_int_equal(rc, -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_misuse),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
