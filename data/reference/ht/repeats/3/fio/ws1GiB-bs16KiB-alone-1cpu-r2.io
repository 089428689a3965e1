rchar: 23139224016
wchar: 5980
syscr: 1412492
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
