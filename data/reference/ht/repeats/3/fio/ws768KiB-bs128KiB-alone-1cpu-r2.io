rchar: 84443114497
wchar: 13664
syscr: 644469
syscw: 5
read_bytes: 61440
write_bytes: 12288
cancelled_write_bytes: 0
