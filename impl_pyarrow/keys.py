"""Integer codes for key columns (dictionary encoding), so keys compare as integers.

Nulls get a code of their own, so two null keys are equal.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

# Largest code range combined without renumbering (products stay inside int64).
_CODE_LIMIT = 2**62


def encode(column: pa.ChunkedArray) -> tuple[pa.ChunkedArray, pa.Array]:
    """(int64 codes, dictionary) of a column; a null is a dictionary entry too.

    A dictionary-typed column keeps its (unified, duplicate-free) dictionary and
    its nulls get the code one past the dictionary's end.
    """
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column, null_encoding="encode")
    if column.num_chunks == 0:
        return pa.chunked_array([], pa.int64()), pa.array([], column.type.value_type)
    column = column.unify_dictionaries()
    dictionary = column.chunks[0].dictionary
    codes = pa.chunked_array([c.indices for c in column.chunks]).cast(pa.int64())
    if codes.null_count:
        if dictionary.null_count:
            raise ValueError("dictionary with a null entry and null indices")
        codes = pc.fill_null(codes, pa.scalar(len(dictionary), pa.int64()))
        dictionary = pa.concat_arrays([dictionary, pa.nulls(1, dictionary.type)])
    return codes, dictionary


def row_codes(columns: list[pa.ChunkedArray]) -> pa.ChunkedArray:
    """One int64 code per row; two rows share a code iff they agree in every column."""
    codes, dictionary = encode(columns[0])
    size = len(dictionary)
    for column in columns[1:]:
        more, more_dict = encode(column)
        width = max(len(more_dict), 1)
        if size * width >= _CODE_LIMIT:
            codes, dense = encode(codes)  # renumber densely: size <= number of rows
            size = len(dense)
        codes = pc.add(pc.multiply(codes, pa.scalar(width, pa.int64())), more)
        size *= width
    return codes


def dictionary_form(column: pa.ChunkedArray) -> tuple[pa.ChunkedArray, pa.Array]:
    """(the column as dictionary chunks sharing one dictionary, that dictionary).

    A column that is not dictionary-typed is encoded with nulls as an entry;
    null indices (a dictionary-typed column's nulls) get the code one past the
    dictionary's end from `chunk_codes`."""
    if not pa.types.is_dictionary(column.type):
        column = pc.dictionary_encode(column, null_encoding="encode")
    if column.num_chunks == 0:
        return column, pa.array([], column.type.value_type)
    first = column.chunks[0].dictionary
    if all(chunk.dictionary.equals(first) for chunk in column.chunks[1:]):
        return column, first  # one dictionary already (as parquet row groups often have)
    column = column.unify_dictionaries()
    return column, column.chunks[0].dictionary


def chunk_codes(chunk: pa.Array, size: int) -> pa.Array:
    """int64 codes of one chunk of a `dictionary_form` column; a null index is `size`."""
    codes = chunk.indices.cast(pa.int64())
    if codes.null_count:
        codes = pc.fill_null(codes, pa.scalar(size, pa.int64()))
    return codes
