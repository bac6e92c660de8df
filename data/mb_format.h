/* mb_format.h — the format version every file between mbkit's stages carries (docs/formats.md,
 * "The format version"): "# format=mbkit-KIND/N" in a CSV table's metadata, "format":
 * "mbkit-KIND/N" at the top of a JSON file. Readers check it with the functions here; a file
 * without it is read as version 1 (every file written before the version existed).
 */
#ifndef MB_FORMAT_H
#define MB_FORMAT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "mb_table.h"

/* The version of every kind this mbkit writes and the highest it reads. */
#define MB_FORMAT_VERSION 1

/* The kinds (docs/formats.md): CSV tables and JSON files. */
#define MB_FORMAT_RUNLOG "runlog"          /* mbtrain, mbkit_torch runs */
#define MB_FORMAT_STEP "step"              /* mbprobe step, learners; mbkit_torch probe */
#define MB_FORMAT_COMM "comm"              /* mbprobe comm */
#define MB_FORMAT_CONV "conv"              /* mbprobe conv */
#define MB_FORMAT_POINTS "points"          /* N_update points, hand-made */
#define MB_FORMAT_VALIDATE_CSV "validate-csv" /* mbopt validate --csv */
#define MB_FORMAT_FIT "fit"                /* mbfit nupdate, tupdate, comm --json */
#define MB_FORMAT_SCALE "scale"            /* mbopt scale --json */
#define MB_FORMAT_VALIDATE "validate"      /* mbopt validate --json */

/* The kind of CSV table a tool writes as its `# tool=` ("mbtrain": runlog, "mbprobe step":
 * step, ..., through mb_data_write_common_meta; "mbkit_torch runs": runlog, "mbkit_torch
 * probe": step, the PyTorch front end's), or NULL for a tool whose output is none of them. */
const char *mb_format_kind_of_tool(const char *tool);

/* Writes "# format=mbkit-KIND/1\n". */
void mb_format_write(FILE *f, const char *kind);

/* Checks table t's "# format=" against `kind`. Absent: version 1, accepted. "1" (a bare number,
 * as the PyTorch front end wrote before the kinds): version 1 of any kind. Otherwise it must be
 * "mbkit-KIND/N" with this kind and 1 <= N <= MB_FORMAT_VERSION: MB_EFORMAT naming the file, the
 * line and the field ("run.csv:1: field 'format': mbkit-step/1 is a step table, not a run log
 * (mbkit-runlog)"; "... mbkit-runlog/2 is newer than this mbkit reads (mbkit-runlog/1)"). A
 * "# tool=" that is a writer's name in other letters (MBTRAIN) is refused too: the readers know
 * a writer by its name as written; a "# tool=" naming an mbkit program that writes no table of
 * this kind ("mbprobe", "mbfit", "mbprobe step" in a run log, "mbtrain" in a collective table):
 * "run.csv:7: metadata 'tool': 'mbprobe' writes no run log (...)"; and an empty "# tool=". */
int mb_format_check_table(const mb_table *t, const char *kind, mb_error *err);

/* The same for a JSON document's top-level "format" (absent: version 1, accepted). kind NULL
 * checks the version and the form only (mb_json_read does that for every JSON file). */
int mb_format_check_json(const cJSON *root, const char *path, const char *kind, mb_error *err);

/* Adds "format": "mbkit-KIND/1" to a JSON object; MB_ENOMEM when cJSON cannot allocate. */
int mb_format_add_json(cJSON *root, const char *kind);

/* A readable name of a kind, for messages ("run log", "step table", ...). */
const char *mb_format_kind_name(const char *kind);

/* Writes the metadata lines every output file starts with: the format line of the tool's kind
 * (mb_format_kind_of_tool; none for a tool without one), then "# tool=...", "# version=...",
 * "# host=...", "# date=..." (UTC, ISO 8601) and "# command=..." (argv joined by spaces, each
 * through mb_format_meta_text: a newline in a path writes no line of its own). */
void mb_data_write_common_meta(FILE *f, const char *tool, int argc, char **argv);

/* Writes text taken from the user (a path, argv) into a metadata value, on one line: each
 * control character escaped as \n, \r, \t or \xHH (0x01-0x1f, 0x7f), the rest as given; the
 * PyTorch front end's meta_text writes the same. */
void mb_format_meta_text(FILE *f, const char *s);

/* The data set a table's `# data=` names (a run log's, a step table's): NULL where it names none
 * (no such line, an empty one, or `random`: the generated inputs mbprobe step times without
 * --data, which are of no data set). */
const char *mb_format_data_set(const mb_table *t);

#endif
