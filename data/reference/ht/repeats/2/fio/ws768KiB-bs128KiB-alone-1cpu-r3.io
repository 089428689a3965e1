rchar: 84790020559
wchar: 5980
syscr: 647086
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
