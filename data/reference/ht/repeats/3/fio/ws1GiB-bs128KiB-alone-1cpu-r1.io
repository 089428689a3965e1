rchar: 49373227981
wchar: 13658
syscr: 376906
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
