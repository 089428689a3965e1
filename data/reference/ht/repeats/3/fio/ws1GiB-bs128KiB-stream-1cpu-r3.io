rchar: 28016445907
wchar: 5973
syscr: 213938
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
