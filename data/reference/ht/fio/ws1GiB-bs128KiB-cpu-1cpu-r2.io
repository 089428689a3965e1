rchar: 13522110929
wchar: 5976
syscr: 103355
syscw: 3
read_bytes: 0
write_bytes: 53248
cancelled_write_bytes: 0
