/* The one masking function of the writers: secret names case-insensitively
 * (and PWD, OLDPWD, PATH left alone), NAME=VALUE words of Environment=, URL
 * credentials anywhere, JSON trees of placements and experiments; masking
 * twice changes nothing. */
#include "tap.h"
#include "common/secret.h"
#include "common/util.h"

static void text_is(const char *in, const char *want)
{
	_cleanup_free_ char *got = secret_mask_text(in);

	is_str(got, want, "mask '%s'", in);
	if (got) {
		_cleanup_free_ char *again = secret_mask_text(got);

		is_str(again, got, "and masking it again changes nothing");
	}
}

int main(void)
{
	static const char *const secret[] = { "db_password", "DB_PASSWORD", "GITHUB_PAT", "github_pat", "MYSQL_PWD",
					      "api_key", "AWS_SECRET_ACCESS_KEY", "my_token", "Authorization",
					      "PGPASSFILE", "vault-cred", "app.pw", "SMTP_PIN", "SENTRY_DSN" };
	static const char *const plain[] = { "PWD", "OLDPWD", "pwd", "PATH", "HOME", "LANG", "PAGER", "GLIBC_TUNABLES",
					     "PATTERN", "SPINNER", "MYSQL_HOST" };
	_cleanup_free_ char *v = NULL, *dump = NULL;
	json_t *j;

	plan(ELEMENTSOF(secret) + ELEMENTSOF(plain) + 26);
	for (size_t i = 0; i < ELEMENTSOF(secret); i++)
		ok(secret_name(secret[i]), "%s is a secret's name", secret[i]);
	for (size_t i = 0; i < ELEMENTSOF(plain); i++)
		ok(!secret_name(plain[i]), "%s is not", plain[i]);

	text_is("APP_PASSWORD=hunter2 FOO=bar db_password=s3cret", "APP_PASSWORD=(withheld) FOO=bar db_password=(withheld)");
	text_is("https_proxy=http://u:pw@proxy:3128/x", "https_proxy=http://(withheld)@proxy:3128/x");
	text_is("GITHUB_PAT=\"ghp one two\" LANG=C", "GITHUB_PAT=(withheld) LANG=C");
	text_is("mysql://root@localhost/db and http://host/a@b", "mysql://(withheld)@localhost/db and http://host/a@b");
	text_is("no secrets here: a=b, PATH=/usr/bin", "no secrets here: a=b, PATH=/usr/bin");
	/* Connection strings (issue 42's M4): libpq's, primary_conninfo,
	 * JDBC URLs, SQL Server's and ODBC's. */
	text_is("host=db port=5432 user=app password=hunter2 dbname=x", "host=db port=5432 user=app password=(withheld) dbname=x");
	text_is("primary_conninfo=host=primary password=hunter2", "primary_conninfo=host=primary password=(withheld)");
	text_is("jdbc:mysql://db:3306/x?user=app&password=hunter2&ssl=true",
		"jdbc:mysql://db:3306/x?user=app&password=(withheld)&ssl=true");
	text_is("jdbc:sqlserver://db:1433;databaseName=x;user=app;password=hunter2;encrypt=true",
		"jdbc:sqlserver://db:1433;databaseName=x;user=app;password=(withheld);encrypt=true");
	text_is("Driver={MariaDB};Server=db;Uid=app;Pwd=hunter2;", "Driver={MariaDB};Server=db;Uid=app;Pwd=(withheld);");

	v = secret_mask_value("HTTPS_PROXY", "http://user:pw@host");
	is_str(v, "http://(withheld)@host", "a proxy's credentials are withheld from its value");
	free(v);
	v = secret_mask_value("MYSQL_PWD", "hunter2");
	is_str(v, SECRET_WITHHELD, "a secret variable's whole value is");
	free(v);
	v = secret_mask_value("DATABASE", "host=db password=hunter2");
	is_str(v, "host=db password=(withheld)", "a connection string's password in a plain variable's value is");
	free(v);
	v = secret_mask_value("JDBC_URL", "jdbc:postgresql://db/x?password=hunter2");
	is_str(v, "jdbc:postgresql://db/x?password=(withheld)", "so is a JDBC URL's");

	j = json_pack("{s:s, s:s, s:{s:s}, s:[s]}", "env.MYSQL_PWD", "hunter2", "env.PWD", "/root", "properties",
		      "Environment", "APP_PASSWORD=hunter2 X=1", "steps", "url http://a:hunter2@b/");
	is_int(secret_mask_json(j), 0, "secret_mask_json");
	dump = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
	ok(dump && !strstr(dump, "hunter2") && strstr(dump, "\"env.PWD\":\"/root\"") && strstr(dump, "X=1"),
	   "no secret is left in the tree, and the rest is (%s)", strempty(dump));
	json_decref(j);
	return done_testing();
}
