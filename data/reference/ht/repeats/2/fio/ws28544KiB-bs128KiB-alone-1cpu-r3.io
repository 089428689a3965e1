rchar: 46133652418
wchar: 13660
syscr: 352191
syscw: 5
read_bytes: 12288
write_bytes: 12288
cancelled_write_bytes: 0
