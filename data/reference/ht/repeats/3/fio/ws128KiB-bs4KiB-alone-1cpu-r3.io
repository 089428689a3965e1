rchar: 17555913674
wchar: 13662
syscr: 4286302
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
