rchar: 11153812422
wchar: 13653
syscr: 10856
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
