rchar: 22093343723
wchar: 13658
syscr: 168776
syscw: 5
read_bytes: 49152
write_bytes: 28672
cancelled_write_bytes: 0
